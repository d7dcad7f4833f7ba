package tgtest

import (
	"encoding/json"
	"fmt"
	"slices"
)

func (s *Server) getMe(Call) (any, *apiError) {
	return struct {
		User
		CanJoinGroups           bool `json:"can_join_groups"`
		CanReadAllGroupMessages bool `json:"can_read_all_group_messages"`
		SupportsInlineQueries   bool `json:"supports_inline_queries"`
		HasTopicsEnabled        bool `json:"has_topics_enabled,omitempty"`
	}{User: s.bot, CanJoinGroups: true, HasTopicsEnabled: s.privateTopics}, nil
}

// deleteWebhook removes the webhook set by SetWebhook; drop_pending_updates empties the queue as Telegram does.
func (s *Server) deleteWebhook(c Call) (any, *apiError) {
	if c.Bool("drop_pending_updates") {
		s.updates.pending = nil
	}
	s.webhook = ""
	return true, nil
}

func (s *Server) getWebhookInfo(Call) (any, *apiError) {
	return map[string]any{"url": s.webhook, "has_custom_certificate": false, "pending_update_count": len(s.updates.pending)}, nil
}

// SetWebhook simulates a webhook left set for the bot (by another
// deployment, say): like Telegram, getUpdates then fails with 409 until
// deleteWebhook is called.
func (s *Server) SetWebhook(url string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.webhook = url
	s.notifyLocked()
}

// Webhook returns the webhook URL currently set ("" when none).
func (s *Server) Webhook() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.webhook
}

// BotCommand is one entry of the bot's command menu.
type BotCommand struct {
	Command     string `json:"command"`
	Description string `json:"description"`
}

// commandsKey identifies a command list by scope and language, as Telegram keeps one list per pair.
func commandsKey(c Call) (string, *apiError) {
	var scope struct {
		Type   string          `json:"type"`
		ChatID json.RawMessage `json:"chat_id"`
		UserID int64           `json:"user_id"`
	}
	if v, ok := c.Params["scope"]; ok {
		if err := json.Unmarshal([]byte(v), &scope); err != nil {
			return "", badRequest("can't parse BotCommandScope JSON object")
		}
	}
	if scope.Type == "" {
		scope.Type = "default"
	}
	return fmt.Sprintf("%s|%s|%d|%s", scope.Type, scope.ChatID, scope.UserID, c.Params["language_code"]), nil
}

func validCommand(name string) bool {
	if len(name) < 1 || len(name) > 32 {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

func (s *Server) setMyCommands(c Call) (any, *apiError) {
	key, e := commandsKey(c)
	if e != nil {
		return nil, e
	}
	var cmds []BotCommand
	if err := json.Unmarshal([]byte(c.Params["commands"]), &cmds); err != nil {
		return nil, badRequest("can't parse commands JSON object")
	}
	if len(cmds) > 100 {
		return nil, badRequest("BOT_COMMANDS_TOO_MUCH")
	}
	for _, cmd := range cmds {
		if !validCommand(cmd.Command) {
			return nil, badRequest("BOT_COMMAND_INVALID")
		}
		if n := UTF16Len(cmd.Description); n < 1 || n > 256 {
			return nil, badRequest("BOT_COMMAND_DESCRIPTION_INVALID")
		}
	}
	s.cmds[key] = cmds
	return true, nil
}

func (s *Server) getMyCommands(c Call) (any, *apiError) {
	key, e := commandsKey(c)
	if e != nil {
		return nil, e
	}
	return append([]BotCommand{}, s.cmds[key]...), nil
}

func (s *Server) deleteMyCommands(c Call) (any, *apiError) {
	key, e := commandsKey(c)
	if e != nil {
		return nil, e
	}
	delete(s.cmds, key)
	return true, nil
}

// Commands is the command menu set for the default scope and no language.
func (s *Server) Commands() []BotCommand {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.cmds["default||0|"])
}

// ChatCommands is the command menu set for one chat (scope "chat") and no
// language.
func (s *Server) ChatCommands(chatID int64) []BotCommand {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.cmds[fmt.Sprintf("chat|%d|0|", chatID)])
}

var chatActions = map[string]bool{
	"typing": true, "upload_photo": true, "record_video": true, "upload_video": true, "record_voice": true,
	"upload_voice": true, "upload_document": true, "choose_sticker": true, "find_location": true,
	"record_video_note": true, "upload_video_note": true,
}

func (s *Server) sendChatAction(c Call) (any, *apiError) {
	if _, e := s.resolveChat(c); e != nil {
		return nil, e
	}
	if !chatActions[c.Params["action"]] {
		return nil, badRequest("wrong parameter action in request")
	}
	return true, nil
}

// getChat answers a minimal ChatFullInfo for chats the fake knows.
func (s *Server) getChat(c Call) (any, *apiError) {
	cs, e := s.resolveChat(c)
	if e != nil {
		return nil, e
	}
	return struct {
		Chat
		AccentColorID    int `json:"accent_color_id"`
		MaxReactionCount int `json:"max_reaction_count"`
	}{Chat: cs.chat, MaxReactionCount: 11}, nil
}
