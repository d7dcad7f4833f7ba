// Package procguard keeps other processes of the same user out of this
// one's memory and environment.
//
// The bot holds secrets (the Telegram token, the transcription key, the
// send_file server's session secret), and the commands Claude runs are
// processes of the same user. On Linux any of them could read
// /proc/<bot pid>/environ, /proc/<pid>/mem or /proc/<pid>/fd, or ptrace the
// bot: the kernel lets a user inspect their own processes. A process that
// is not "dumpable" is exempt: only a process with CAP_SYS_PTRACE (root)
// may look inside it. The flag is reset by execve, so programs the bot
// starts (Claude Code, git) run as usual and are not protected by it.
// It imports none of the bot's packages.
package procguard
