package view

import (
	"time"

	"github.com/untether/untether/chat"
	"github.com/untether/untether/engine"
)

// The core's values (package chat, engine) in a chat's words.

// Failure is how a chat is told of a failed turn; own gives the view of
// a frontend's own error (chat.FailInput), if it knows it.
func Failure(f chat.Failure, own func(error) (TurnError, bool)) TurnError {
	switch f.Kind {
	case chat.FailNotFound:
		return ClaudeNotFound(f.Detail)
	case chat.FailExited:
		return ClaudeExited(f.ExitCode, f.Signal, f.Detail, f.StderrTail)
	case chat.FailUnreachable:
		return HostUnreachable(f.Machine, f.Detail, f.Others)
	case chat.FailDailyBudget:
		return DailyBudgetReached(f.Spent, f.Budget)
	case chat.FailInput:
		if e, ok := own(f.Err); ok {
			return e
		}
		return StartFailed(f.Detail)
	}
	return StartFailed(f.Detail)
}

// LimitOf is a usage limit the engine reported, as the views show it as
// of now.
func LimitOf(e engine.RateLimited, now time.Time) Limit {
	return Limit{Status: limitStatuses[e.Status], Name: e.Limit, ResetsAt: e.ResetsAt, Used: e.Utilization, Now: now}
}

// limitStatuses are view's statuses of the engine's.
var limitStatuses = map[engine.LimitStatus]string{
	engine.LimitAllowed: LimitAllowed, engine.LimitWarning: LimitWarning, engine.LimitReached: LimitRejected,
}

// HeldEnd is what the live messages of a turn a previous bot process began
// say when it cannot go on.
func HeldEnd(s chat.HeldStop) string {
	switch s.Why {
	case chat.HeldGone:
		return HeldGoneText
	case chat.HeldOtherVersion:
		return HeldOtherVersionText
	case chat.HeldUnreachable:
		return HeldUnreachableText(s.Machine)
	case chat.HeldChatRefused:
		return HeldNotAllowedText(true)
	case chat.HeldUserRefused:
		return HeldNotAllowedText(false)
	case chat.HeldDirRefused:
		return HeldDirRefusedText
	}
	return RestartedText
}

// NoteText is what a chat reads of a note of the core, as of now; ok is
// false for one that is not said in words (chat.NoteBilling).
func NoteText(n chat.Note, now time.Time) (text string, ok bool) {
	switch n := n.(type) {
	case chat.NoteNotAllowed:
		return NotAllowedNote(n.Chat), true
	case chat.NoteContinuedElsewhere:
		return ContinuedElsewhere, true
	case chat.NoteResumeFailed:
		return ResumeFailedNote, true
	case chat.NoteUsageWarning:
		return UsageWarningNotice(LimitOf(n.Limit, now)), true
	case chat.NoteWorkDirFallback:
		return WorkDirFallback(n.Stored, n.Why, n.Resolved, n.Default), true
	case chat.NoteSkipped:
		return SkippedNote(n.Age), true
	case chat.NoteSteered:
		return SteerNote(n.Stage), true
	case chat.NoteProjectRules:
		return ProjectRulesNote(n), true
	}
	return "", false
}
