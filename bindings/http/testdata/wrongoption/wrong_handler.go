//go:build wrong_handler

package main

import soaphttp "github.com/soapwire/soapwire/bindings/http"

func init() { _ = soaphttp.NewHandler(h, soaphttp.WithCredentials("u", "p")) }
