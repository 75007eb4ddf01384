package xsd

import (
	"context"
	"fmt"
)

// Load reads the schema document at location, with everything it imports
// and includes, through loader (and the catalog, see WithCatalog), and
// returns the set of schemas. Unless the loader is an HTTP one, nothing is
// fetched from the network. The error is an *Error listing what the
// schemas say wrong, or the failure to load a document (which wraps
// ErrLimit or ErrTooLarge for a limit).
func Load(ctx context.Context, loader Loader, location string, opts ...Option) (*Set, error) {
	r := NewReader(ctx, loader, opts...)
	r.LoadSchemaAt(location, Loc{}, 0, "", false, "")
	if r.fatal != nil {
		return nil, fmt.Errorf("xsd: %w", r.fatal)
	}
	set, err := r.Set()
	if err != nil {
		return nil, fmt.Errorf("xsd: %w", err)
	}
	return set, nil
}
