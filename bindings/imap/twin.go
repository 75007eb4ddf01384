package imap

import (
	"github.com/emersion/go-imap/v2"
)

// A claim can still leave a mail twice in the processing folder: without
// MOVE, two Receivers may both COPY it before either expunges it, and a
// server whose MOVE or conditional STORE is not atomic across sessions
// (Dovecot with Maildir, whose view of a folder may lag another session's
// change made within the same second) may let two claims through. So after
// its claim a Receiver looks in the processing folder for the mail's twins:
// mails with the same Message-ID, RFC822.SIZE and INTERNALDATE (a copy
// keeps both). Copies get UIDs in the order they were made, so of two
// twins the later one always sees the earlier: the claimer whose copy has
// not the lowest UID yields, expunging its copy, and only the lowest is
// handled. A mail without a Message-ID is not checked.

// yields reports whether the claimed mail uid has a twin with a lower UID
// in the processing folder (s), and if so expunges uid.
func yields(s *session, uid imap.UID, messageID string) (bool, error) {
	if messageID == "" || !isMsgIDValue(messageID) {
		return false, nil
	}
	data, err := s.c.UIDSearch(&imap.SearchCriteria{
		Header:  []imap.SearchCriteriaHeaderField{{Key: "Message-ID", Value: messageID}},
		NotFlag: []imap.Flag{imap.FlagDeleted},
	}, nil).Wait()
	if err != nil {
		return false, err
	}
	uids := data.AllUIDs()
	if len(uids) < 2 {
		return false, nil
	}
	msgs, err := s.c.Fetch(imap.UIDSetNum(uids...), &imap.FetchOptions{UID: true, RFC822Size: true, InternalDate: true}).Collect()
	if err != nil {
		return false, err
	}
	var mine *struct {
		size int64
		date int64
	}
	for _, m := range msgs {
		if m.UID == uid {
			mine = &struct {
				size int64
				date int64
			}{m.RFC822Size, m.InternalDate.Unix()}
		}
	}
	if mine == nil {
		return false, nil
	}
	for _, m := range msgs {
		if m.UID < uid && m.RFC822Size == mine.size && m.InternalDate.Unix() == mine.date {
			return true, deleteUID(s, uid)
		}
	}
	return false, nil
}

// isMsgIDValue reports whether v can be searched for as it is (no control
// characters, no quotes that the search string would have to escape).
func isMsgIDValue(v string) bool {
	if len(v) > 900 {
		return false
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; c < ' ' || c == 0x7f || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}
