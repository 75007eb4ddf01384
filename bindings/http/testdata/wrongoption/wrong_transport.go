//go:build wrong_transport

package main

import soaphttp "github.com/soapwire/soapwire/bindings/http"

func init() { _ = soaphttp.NewTransport("", soaphttp.WithLogger(l)) }
