package approvals

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// QuestionView is the AskUserQuestion question to show now, with a token
// per button. Tokens of earlier questions are dead once a question is answered.
type QuestionView struct {
	Index       int // 0-based
	Total       int
	Question    string
	Header      string
	MultiSelect bool
	Options     []OptionView
	DoneToken   string // multiSelect only: records the selected options
	OtherToken  string // the next text message becomes the answer
	DenyToken   string // dismiss all the questions (deny)
	// AwaitingText: Other was pressed and the next text message in this
	// session is taken as the answer (see TakeText).
	AwaitingText bool
	Answered     []Answer // earlier questions of this request
	// Version grows with every state of the request's questions: of two
	// views, the higher one is newer (presses are handled concurrently).
	Version int
}

// OptionView is one option; Selected is the multi-select state.
type OptionView struct {
	Label       string
	Description string
	Selected    bool
	Token       string
}

// Answer is one answered question.
type Answer struct {
	Question string
	Answer   string
}

type questionItem struct {
	Question string `json:"question"`
	Header   string `json:"header"`
	Options  []struct {
		Label       string `json:"label"`
		Description string `json:"description"`
	} `json:"options"`
	MultiSelect bool `json:"multiSelect"`
}

type questionState struct {
	items    []questionItem
	index    int
	answers  []string // one per answered question
	selected []bool   // current question, multi-select
	awaiting bool
	version  int // of the last view

	optTokens                      []string
	doneToken, otherToken, denyTok string
}

var errNoQuestions = errors.New("no questions")

func parseQuestions(input json.RawMessage) (*questionState, error) {
	var in struct {
		Questions []questionItem `json:"questions"`
	}
	if err := json.Unmarshal(input, &in); err != nil {
		return nil, fmt.Errorf("questions input: %w", err)
	}
	if len(in.Questions) == 0 {
		return nil, errNoQuestions
	}
	for _, q := range in.Questions {
		if strings.TrimSpace(q.Question) == "" {
			return nil, errNoQuestions
		}
	}
	return &questionState{items: in.Questions}, nil
}

func (q *questionState) current() questionItem { return q.items[q.index] }

// mintQuestionLocked (re)creates every token of the current question; the
// old ones die so a late press on an earlier question is Stale.
func (b *Broker) mintQuestionLocked(p *pending) {
	b.revokeLocked(p)
	q := p.q
	item := q.current()
	q.selected = make([]bool, len(item.Options))
	q.optTokens = q.optTokens[:0]
	for i := range item.Options {
		q.optTokens = append(q.optTokens, b.tokenLocked(p, ActionOption, i))
	}
	q.doneToken = ""
	if item.MultiSelect {
		q.doneToken = b.tokenLocked(p, ActionDone, 0)
	}
	q.otherToken = b.tokenLocked(p, ActionOther, 0)
	q.denyTok = b.tokenLocked(p, ActionDeny, 0)
}

func (q *questionState) view() *QuestionView {
	item := q.current()
	q.version++
	v := &QuestionView{
		Version:      q.version,
		Index:        q.index,
		Total:        len(q.items),
		Question:     item.Question,
		Header:       item.Header,
		MultiSelect:  item.MultiSelect,
		DoneToken:    q.doneToken,
		OtherToken:   q.otherToken,
		DenyToken:    q.denyTok,
		AwaitingText: q.awaiting,
	}
	for i, o := range item.Options {
		v.Options = append(v.Options, OptionView{
			Label: o.Label, Description: o.Description, Selected: q.selected[i], Token: q.optTokens[i],
		})
	}
	for i, a := range q.answers {
		v.Answered = append(v.Answered, Answer{Question: q.items[i].Question, Answer: a})
	}
	return v
}

func (q *questionState) selectedLabels() []string {
	var out []string
	for i, o := range q.current().Options {
		if q.selected[i] {
			out = append(out, o.Label)
		}
	}
	return out
}

// applyQuestionLocked handles option, Done and Other presses.
func (b *Broker) applyQuestionLocked(p *pending, ref tokenRef) (Result, *decision) {
	q := p.q
	item := q.current()
	switch ref.action {
	case ActionOption:
		label := item.Options[ref.option].Label
		if !item.MultiSelect {
			return b.answerLocked(p, label)
		}
		q.selected[ref.option] = !q.selected[ref.option]
		b.stopAwaitingLocked(p)
		b.armTimerLocked(p)
		return Result{Outcome: OutcomeToggled, Question: q.view(), Toggled: ref.option}, nil
	case ActionDone:
		labels := q.selectedLabels()
		if len(labels) == 0 {
			return Result{Outcome: OutcomeNothingChosen, Question: q.view()}, nil
		}
		return b.answerLocked(p, strings.Join(labels, ", "))
	}
	// ActionOther
	q.awaiting = true
	key := p.key
	s := b.session(key.session)
	if s.awaiting != nil && *s.awaiting != key {
		// Only one question per session can own the next text message.
		if other := b.pending[*s.awaiting]; other != nil && other.q != nil {
			other.q.awaiting = false
		}
	}
	s.awaiting = &key
	b.armTimerLocked(p)
	return Result{Outcome: OutcomeAwaitingText, Question: q.view()}, nil
}

func (b *Broker) stopAwaitingLocked(p *pending) {
	p.q.awaiting = false
	if s := b.sessions[p.key.session]; s != nil && s.awaiting != nil && *s.awaiting == p.key {
		s.awaiting = nil
		b.tidyLocked(p.key.session)
	}
}

// answerLocked records the answer to the current question and moves on;
// after the last one the request is resolved with the answers.
func (b *Broker) answerLocked(p *pending, answer string) (Result, *decision) {
	q := p.q
	b.stopAwaitingLocked(p)
	q.answers = append(q.answers, answer)
	q.index++
	if q.index < len(q.items) {
		b.mintQuestionLocked(p)
		b.armTimerLocked(p)
		return Result{Outcome: OutcomeNextQuestion, Question: q.view()}, nil
	}
	b.resolveLocked(p)
	answers := make(map[string]string, len(q.items))
	for i, it := range q.items {
		answers[it.Question] = q.answers[i]
	}
	input, err := withAnswers(p.req.Input, answers)
	if err != nil {
		// Cannot happen for input that parsed as questions; say so to Claude rather than hang.
		return Result{Outcome: OutcomeFailed},
			denyWith("The answers could not be attached to the questions (" + err.Error() + "). Ask again in plain text.")
	}
	return Result{Outcome: OutcomeAnswered, Answers: answers}, allowWith(input)
}

// withAnswers returns input with "answers" set, keeping every other field.
func withAnswers(input json.RawMessage, answers map[string]string) (json.RawMessage, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(input, &obj); err != nil {
		return nil, fmt.Errorf("questions input: %w", err)
	}
	a, err := json.Marshal(answers)
	if err != nil {
		return nil, fmt.Errorf("answers: %w", err)
	}
	obj["answers"] = a
	out, err := json.Marshal(obj)
	if err != nil {
		return nil, fmt.Errorf("updated input: %w", err)
	}
	return out, nil
}

// AwaitsText reports whether a question of the session waits for a typed
// answer, i.e. whether TakeText could take the session's next text. It
// never waits for Claude, so the poller may ask it for every message.
func (b *Broker) AwaitsText(sessionKey string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := b.sessions[sessionKey]
	return s != nil && s.awaiting != nil
}

// TakeText offers a text message from the chat as the answer to a question
// whose Other button was pressed. It returns consumed false (and does
// nothing) when no question of that session waits for text, the chat
// differs, the user may not answer, or the text is blank; the bot then
// treats the message as a normal prompt. When consumed, Result is as for
// Press (next question or answered) and a write error is returned.
func (b *Broker) TakeText(ctx context.Context, chatID, userID int64, sessionKey, text string) (bool, Result, error) {
	text = strings.TrimSpace(text)
	if text == "" || b.isAllowed == nil || !b.isAllowed(userID) {
		return false, Result{}, nil
	}
	b.mu.Lock()
	s := b.sessions[sessionKey]
	if s == nil || s.awaiting == nil {
		b.mu.Unlock()
		return false, Result{}, nil
	}
	p := b.pending[*s.awaiting]
	if p == nil || p.q == nil || p.req.ChatID != chatID {
		b.mu.Unlock()
		return false, Result{}, nil
	}
	answer := text
	if p.q.current().MultiSelect {
		answer = strings.Join(append(p.q.selectedLabels(), text), ", ")
	}
	res, dec := b.answerLocked(p, answer)
	b.mu.Unlock()
	res, err := b.finish(ctx, p, res, dec, userID)
	return true, res, err
}
