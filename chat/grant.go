package chat

import "github.com/untether/untether/filesend"

// The send_file tool of a process: the grant it gets when it starts, for
// the directory it starts in.

// openGrant lets the process about to start send files from its scope:
// the directory it starts in (startDir, links resolved, as approvals take
// it), the chat's upload folder, add_dirs. Without the tool (not
// configured, or the grant failed) Claude runs all the same.
func (a *session) openGrant(m *Machine, startDir string) *filesend.Grant {
	b := a.c
	open := m.Grant
	if m.Name == LocalMachine && b.cfg.Files != nil {
		open = b.cfg.Files.Open
	}
	if b.cfg.Files == nil || open == nil {
		return nil
	}
	g, err := open(b.grantSession(m, a.key, startDir))
	if err != nil {
		b.log.Warn("claude starts without the send_file tool", "chat_id", a.place.ChatID, "session_key", a.key, "err", err)
		return nil
	}
	return g
}

// grantSession is what a process of session key started in startDir
// (links resolved) on m may send.
func (b *Core) grantSession(m *Machine, key, startDir string) filesend.Session {
	rule := b.broker.PathRule(startDir, m.UploadFolder(key), m.Where())
	rule.WorkDirResolved = true
	return filesend.Session{Key: key, Rule: rule}
}

func closeGrant(g *filesend.Grant) {
	if g != nil {
		g.Close()
	}
}
