package web

import (
	"net/http"
	"time"
)

// Consent is what the consent page shows and sends back.
type Consent struct {
	ClientName string
	// ClientHost is the host of a client that named itself by a URL (a
	// Client ID Metadata Document); "" for a registered client. Hosts are
	// shown in their ASCII (punycode) form only; the ...NotASCII fields
	// say the host's letters are not all ASCII (it may imitate another),
	// which the page warns of.
	ClientHost         string
	ClientHostNotASCII bool
	// Fields are the authorization request's parameters, sent back with
	// the person's answer.
	Fields []Field
	// RedirectOrigin is where the answer sends the browser: the page's
	// Content-Security-Policy must let the form lead there.
	RedirectOrigin string
	// ReturnTo is where the answer goes, as people read it: the redirect
	// URI's host. ReturnToApp is set instead for an app's private-use
	// scheme ("cursor://", "com.example.app:"): the browser opens the app
	// registered for those links, and the page says so.
	ReturnTo         string
	ReturnToNotASCII bool
	ReturnToApp      string
	// Budget is the searches an hour the client may make.
	Budget int
}

// Field is a hidden form field.
type Field struct{ Name, Value string }

type consentPage struct {
	Base
	*Consent
}

// ShowConsent answers the consent page: a client asks the signed-in
// person for access, with the buttons Allow and Deny.
func (p *Pages) ShowConsent(w http.ResponseWriter, r *http.Request, c *Consent) {
	w.Header().Set("Cache-Control", "no-store")
	p.render(w, r, http.StatusOK, "consent", &consentPage{Base: Base{Title: "Allow " + c.ClientName + "?", formAction: c.RedirectOrigin}, Consent: c})
}

// App is a client a person allowed, as the API Keys page lists it.
type App struct {
	ID, Name          string
	Allowed, LastUsed time.Time
	Used, Limit       int
}
