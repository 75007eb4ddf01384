//go:build wrong_server

package main

import (
	soaphttp "github.com/soapwire/soapwire/bindings/http"
	"github.com/soapwire/soapwire/core"
)

func init() { _ = soaphttp.NewServer("", hh, soaphttp.WithLimits(core.Limits{})) }
