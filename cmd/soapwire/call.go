package main

import "context"

func runCall(ctx context.Context, c *cli, args []string) int  { return 0 }
