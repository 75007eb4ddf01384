// Package gencodec holds the benchmarks of soapwire gen's codecs: a
// message of the echo contract (echo.wsdl: an order of about 1 KB and of
// about 100 KB) encoded and decoded by the generated code
// (bench/internal/echows), by core/xsd's reflective codec driven by the
// same schema, and by encoding/xml on the same Go value, in the same run
// (docs/benchmarks.md).
package gencodec

//go:generate go run ../../cmd/soapwire gen -o ../internal/echows echo.wsdl
