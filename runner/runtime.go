package runner

// runtimeEnv tunes the runtime Claude Code's binary is built on (Bun),
// for a CLI that the bot keeps alive between turns. It comes before the
// owner's environment, so a value there ([claude] env, or the bot's own
// environment) wins.
//
// BUN_GC_TIMER_DISABLE=1 turns off Bun's idle collections: after every
// turn Bun collects once a second while the heap changes, then fully
// after 10 s of quiet, about 0.3–0.45 s of CPU for each turn that is
// followed by a pause (measured with 2.1.330, docs/performance.md "A
// team's burst"). JavaScriptCore's own collections, paced by allocation,
// still run: the heap stays bounded, but garbage made just before a pause
// is kept until the CLI allocates again, some 20–50 MB more per idle CLI
// (the bot plans a GiB for each live one). In a burst of twenty new chats
// the idle collections of the chats already answered took the CPU the
// later chats' starts needed: a third of the CLIs' CPU. Tools Claude
// starts inherit the variable; it only concerns Bun programs, and only
// their idle collections.
var runtimeEnv = []string{"BUN_GC_TIMER_DISABLE=1"}
