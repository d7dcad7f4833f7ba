package ssh

import (
	"strings"
	"testing"
)

func TestCheckArgs(t *testing.T) {
	ok := [][]string{
		nil,
		{"-p", "2222", "-i", "~/.ssh/id_box", "-F", "/home/me/.ssh/other", "-o", "IdentitiesOnly=yes"},
		{"-p2222", "-4", "-C", "-oProxyJump=bastion", "-o", "ServerAliveInterval 5"},
		{"-J", "jump@gw", "-l", "me", "-qC"},
	}
	for _, a := range ok {
		if err := CheckArgs(a); err != nil {
			t.Errorf("CheckArgs(%q) = %v, want nil", a, err)
		}
	}
	bad := map[string][]string{
		"agent":        {"-A"},
		"joined":       {"-CA"},
		"x11":          {"-X"},
		"trusted x11":  {"-Y"},
		"tty":          {"-t"},
		"forward":      {"-L", "8080:localhost:80"},
		"dyn":          {"-D1080"},
		"control":      {"-S", "/tmp/x"},
		"master":       {"-M"},
		"stdio":        {"-W", "h:22"},
		"none":         {"-N"},
		"gssapi":       {"-K"},
		"opt agent":    {"-o", "ForwardAgent=yes"},
		"opt joined":   {"-oforwardagent yes"},
		"opt tab":      {"-o", "RemoteForward\t/tmp/a /tmp/b"},
		"opt strict":   {"-o", "StrictHostKeyChecking=no"},
		"opt command":  {"-o", "RemoteCommand=sh"},
		"destination":  {"box"},
		"no value":     {"-p"},
		"unknown flag": {"-Z"},
	}
	for name, a := range bad {
		err := CheckArgs(a)
		if err == nil || !strings.HasPrefix(err.Error(), "ssh_args: ") {
			t.Errorf("%s: CheckArgs(%q) = %v, want a refusal", name, a, err)
		}
	}
}
