package smtp

// Hooks for the black-box tests (package smtp_test).

// SetSyncHook makes mb call hook before each sync of a batch of mails:
// stage "data" (the mails' files) or "dir" (new/, after the renames), with
// the batch's names. An error fails that sync. Set it before mb is used.
func SetSyncHook(mb *Maildir, hook func(stage string, names []string) error) {
	mb.commit.hook = hook
}

// QueuedCommits returns how many mails wait for mb's next batch.
func QueuedCommits(mb *Maildir) int {
	mb.commit.mu.Lock()
	defer mb.commit.mu.Unlock()
	return len(mb.commit.queue)
}

// CloseOpenSpares closes the spares mb keeps open (as its process's exit
// would), making them spares any Maildir may take.
func CloseOpenSpares(mb *Maildir) {
	for {
		select {
		case s := <-mb.openSpares:
			s.f.Close()
		default:
			return
		}
	}
}

// Held returns how many mails mb holds for its Receivers.
func Held(mb *Maildir) int {
	mb.mu.Lock()
	defer mb.mu.Unlock()
	return len(mb.held)
}
