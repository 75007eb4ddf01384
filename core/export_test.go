package core

// PlainAddressingValue is the value takeAddressing reads from a plain
// block without the tokenizer; ok is false where it leaves the block to the
// tokenizer.
func PlainAddressingValue(raw []byte) (string, bool) { return plainValue(raw) }

// TokenAddressingValue is the value takeAddressing reads from a block with
// the tokenizer.
func TokenAddressingValue(raw []byte) (string, error) { return tokenValue(raw, false) }
