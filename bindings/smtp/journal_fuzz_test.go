package smtp

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// journalSeeds are segments: sound, torn, corrupt, not a journal.
func journalSeeds() [][]byte {
	sound := appendRecord([]byte(journalMagic), recMail, "1.M1P2Q3.host", []byte("Subject: x\r\n\r\nhello\r\n"))
	sound = appendRecord(sound, recAck, "0.M0P2Q1.host", nil)
	sound = appendRecord(sound, recMail, "1.M2P2Q4.host", nil)
	badCRC := bytes.Clone(sound)
	badCRC[len(journalMagic)+7] ^= 1
	return [][]byte{
		sound,
		sound[:len(sound)-3],
		badCRC,
		appendRecord([]byte(journalMagic), recMail, "../escape", []byte("x")),
		appendRecord([]byte(journalMagic), recMail, ".dot", []byte("x")),
		appendRecord([]byte(journalMagic), recAck, "a", []byte("ack with data")),
		append([]byte(journalMagic), 'M', 1, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 'a'),
		[]byte(journalMagic),
		[]byte("soapwire-journal-0\n"),
		nil,
	}
}

// FuzzReadJournal: no segment makes readJournal panic, allocate beyond the
// segment's size or hand out a record outside it or with a name that could
// leave its folder; and every record it hands out is exactly what
// appendRecord wrote (re-encoding the records read gives the sound prefix
// back).
func FuzzReadJournal(f *testing.F) {
	for _, s := range journalSeeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, seg []byte) {
		size := int64(len(seg))
		again := []byte(journalMagic)
		_, err := readJournal(bytes.NewReader(seg), size, nil, func(r journalRecord) {
			require.True(t, r.off >= 0 && r.n >= 0 && r.off+r.n <= size, "record outside the segment: %+v", r)
			require.True(t, validMailName(r.name), "name %q", r.name)
			require.Contains(t, []byte{recMail, recAck}, r.kind)
			again = appendRecord(again, r.kind, r.name, seg[r.off:r.off+r.n])
		})
		if err != nil {
			return
		}
		require.True(t, bytes.HasPrefix(seg, again), "records read are not what was written")
	})
}

// TestJournalRecordsRoundTrip: records written are read back in order,
// with their data, and a torn last record is left out.
func TestJournalRecordsRoundTrip(t *testing.T) {
	seg := []byte(journalMagic)
	want := []struct {
		kind byte
		name string
		data string
	}{
		{recMail, "a", "first mail"},
		{recAck, "b", ""},
		{recMail, "c", string(bytes.Repeat([]byte("x"), 70000))},
	}
	for _, w := range want {
		seg = appendRecord(seg, w.kind, w.name, []byte(w.data))
	}
	full := len(seg)
	seg = appendRecord(seg, recMail, "torn", []byte("never synced"))
	seg = seg[:len(seg)-1]
	var got []string
	_, err := readJournal(bytes.NewReader(seg), int64(len(seg)), nil, func(r journalRecord) {
		got = append(got, string(r.kind)+r.name+":"+string(seg[r.off:r.off+r.n]))
	})
	require.NoError(t, err)
	require.Len(t, got, 3)
	for i, w := range want {
		assert.Equal(t, string(w.kind)+w.name+":"+w.data, got[i])
	}
	_, err = readJournal(bytes.NewReader(seg[:full]), int64(full), nil, func(journalRecord) {})
	assert.NoError(t, err)
	_, err = readJournal(bytes.NewReader([]byte("not a journal at all")), 20, nil, func(journalRecord) {})
	assert.ErrorContains(t, err, "not a journal")
}
