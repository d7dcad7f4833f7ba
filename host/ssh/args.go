package ssh

import (
	"fmt"
	"strings"
)

// The options a host's ssh_args may hold. The bot's own options come
// first on ssh's command line, and for "-o" ssh keeps the first value, so
// a later "-o ForwardAgent=yes" would be ignored; but a flag such as -A
// sets its option whatever came before, and others break the session the
// bot relies on. So ssh_args is checked against what is known to be
// harmless, and anything else is refused with its reason.
var (
	// plainFlags take no value.
	plainFlags = "46CqvTxaky"
	// valueFlags take one (joined, "-p22", or the next argument).
	valueFlags = "pilFoJcmbBEIe"
	// refusedFlags say why.
	refusedFlags = map[byte]string{
		'A': "forwards your ssh agent to the host: Claude there could use your keys",
		'X': "forwards X11", 'Y': "forwards X11",
		'K': "delegates GSSAPI credentials to the host",
		'L': "forwards a port", 'R': "forwards a port", 'D': "forwards a port", 'W': "forwards stdio",
		'w': "forwards a tunnel device",
		'S': "sets the control socket, which the bot owns", 'M': "makes a master, which the bot does",
		'O': "sends a control command", 't': "asks for a terminal the bot does not read", 'N': "runs no command",
		'n': "closes stdin", 'f': "goes to the background", 's': "asks for a subsystem",
		'G': "prints the config instead of connecting", 'V': "prints the version instead of connecting",
		'Q': "queries instead of connecting", 'g': "lets other machines use forwarded ports",
	}
	// refusedOptions are -o options (lower case) that would forward
	// something, or take over what the bot sets for its session.
	refusedOptions = map[string]string{
		"forwardagent": "forwards your ssh agent", "forwardx11": "forwards X11", "forwardx11trusted": "forwards X11",
		"gssapidelegatecredentials": "delegates credentials", "localforward": "forwards a port",
		"remoteforward": "forwards a port", "dynamicforward": "forwards a port", "clearallforwardings": "is the bot's",
		"controlmaster": "is the bot's", "controlpath": "is the bot's", "controlpersist": "is the bot's",
		"batchmode": "is the bot's", "stricthostkeychecking": "is the bot's (yes: known_hosts decides)",
		"remotecommand": "replaces the bot's command", "requesttty": "asks for a terminal",
		"sessiontype": "changes the session", "stdinnull": "closes stdin",
		"forkafterauthentication": "goes to the background", "tunnel": "forwards a tunnel device",
		"permitremoteopen": "is about forwards", "exitonforwardfailure": "is about forwards",
	}
)

// CheckArgs says why a host's ssh_args cannot be used, or nil.
func CheckArgs(args []string) error {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if len(a) < 2 || a[0] != '-' || a == "--" {
			return fmt.Errorf("ssh_args: %q is not an option (the destination goes in ssh)", a)
		}
		for j := 1; j < len(a); j++ {
			f := a[j]
			if strings.IndexByte(plainFlags, f) >= 0 {
				continue
			}
			if why, ok := refusedFlags[f]; ok {
				return fmt.Errorf("ssh_args: -%c is refused: it %s", f, why)
			}
			if strings.IndexByte(valueFlags, f) < 0 {
				return fmt.Errorf("ssh_args: -%c is not an option the bot knows to be safe", f)
			}
			val := a[j+1:]
			if val == "" {
				i++
				if i == len(args) {
					return fmt.Errorf("ssh_args: -%c wants a value", f)
				}
				val = args[i]
			}
			if f == 'o' {
				if err := checkOption(val); err != nil {
					return err
				}
			}
			break
		}
	}
	return nil
}

// checkOption checks one -o "Key=value" or "Key value".
func checkOption(kv string) error {
	key, _, _ := strings.Cut(strings.TrimSpace(kv), "=")
	if i := strings.IndexAny(key, " \t"); i >= 0 {
		key = key[:i]
	}
	// ssh takes a quoted keyword ("Tunnel" yes) as the keyword.
	key = strings.ReplaceAll(key, `"`, "")
	if why, ok := refusedOptions[strings.ToLower(strings.TrimSpace(key))]; ok {
		return fmt.Errorf("ssh_args: -o %s is refused: it %s", key, why)
	}
	return nil
}
