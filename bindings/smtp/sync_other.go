//go:build !linux

package smtp

import "os"

// syncData makes f's data durable: fsync(2).
func syncData(f *os.File) error { return f.Sync() }

// syncFS is Linux only.
func syncFS(*os.File) error { return errNoSyncFS }

// haveSyncFS: syncfs(2) is Linux only.
func haveSyncFS() bool { return false }

// syncEverything is Linux only (SyncJournal is SyncFiles elsewhere).
func syncEverything(*os.File) error { return errNoSyncFS }
