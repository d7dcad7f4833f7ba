// Package chat is the conversation core: every conversation's work with
// its agent, for any frontend. It knows no Telegram and no engine
// implementation: frontends call it and render its values, engines are
// reached through package engine.
//
// It holds, so far, the machines a conversation can work on and the pool
// of live agent processes on each (machine.go, pool.go); a turn's state
// lives in chat/turnstate. The sessions, their queues and turns move here
// from package telegram step by step (docs/architecture.md).
package chat
