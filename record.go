package mcpdir

import (
	"net/url"
	"strings"
)

// RecordError is why a record was skipped; Reason is short and stable so that
// an import can count skips by reason.
type RecordError struct {
	Reason string
	Detail string
}

func (e *RecordError) Error() string {
	if e.Detail == "" {
		return e.Reason
	}
	return e.Reason + ": " + e.Detail
}

// Normalize trims an entry's fields, derives what can be derived (brief from
// description, transports from packages and remotes) and validates it.
func (e *Entry) Normalize() error {
	e.Name = strings.TrimSpace(e.Name)
	e.Brief = strings.TrimSpace(e.Brief)
	e.Description = strings.TrimSpace(e.Description)
	e.WebsiteURL = strings.TrimSpace(e.WebsiteURL)
	e.RepositoryURL = strings.TrimSpace(e.RepositoryURL)
	if e.Name == "" {
		return &RecordError{Reason: "missing name"}
	}
	if e.Brief == "" && e.Description != "" {
		e.Brief = TruncateWords(e.Description, 200)
	}
	urls := []string{e.WebsiteURL, e.RepositoryURL}
	for _, r := range e.Remotes {
		urls = append(urls, r.URL)
	}
	for _, u := range urls {
		if u != "" && !IsWebURL(u) {
			return &RecordError{Reason: "invalid URL", Detail: TruncateWords(redactUserinfo(u), 80)}
		}
	}
	if len(e.Packages) > MaxListItems || len(e.Remotes) > MaxListItems || len(e.Tools) > 2*MaxListItems {
		return &RecordError{Reason: "too many list items"}
	}
	seen := map[string]bool{}
	for _, t := range e.Transports {
		seen[t] = true
	}
	for _, p := range e.Packages {
		if p.Transport != "" && !seen[p.Transport] {
			seen[p.Transport] = true
			e.Transports = append(e.Transports, p.Transport)
		}
	}
	for _, r := range e.Remotes {
		if r.Transport != "" && !seen[r.Transport] {
			seen[r.Transport] = true
			e.Transports = append(e.Transports, r.Transport)
		}
	}
	return nil
}

// IsWebURL is the one rule for every URL of an entry: http or https, a
// host, and no user name or password (a credential in a public directory
// is a leak, and userinfo is how phishing links hide their host).
func IsWebURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "https" || u.Scheme == "http") && u.Host != "" && u.User == nil
}

// redactUserinfo hides a URL's credentials before it is echoed in a reason.
func redactUserinfo(s string) string {
	if u, err := url.Parse(s); err == nil && u.User != nil {
		u.User = url.User("…")
		return u.String()
	}
	return s
}
