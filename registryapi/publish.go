package registryapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mcpdir/mcpdir"
	"github.com/mcpdir/mcpdir/importer"
	"github.com/mcpdir/mcpdir/registry"
)

// maxStatusMessage is the schema's bound on a status message.
const maxStatusMessage = 500

// Publish, Delete, SetStatus and SetStatusAll are the write side's
// handlers: publishing a version (POST /v0.1/publish, or PUT at its path),
// deleting one, and changing the status of one or of every version of a
// server. http/routes.go maps them behind an admin key check.
func (a *API) Publish() http.Handler      { return a.writing(a.publish) }
func (a *API) Delete() http.Handler       { return a.writing(a.delete) }
func (a *API) SetStatus() http.Handler    { return a.writing(a.setStatus) }
func (a *API) SetStatusAll() http.Handler { return a.writing(a.setStatusAll) }

// publish takes a server.json: a new version, or a new record for a
// version there is (its status and publication time stay). At PUT's path,
// the record's name and version must be the path's.
func (a *API) publish(w http.ResponseWriter, r *http.Request) {
	body, ok := readBody(w, r)
	if !ok {
		return
	}
	var doc any
	if err := json.Unmarshal(body, &doc); err != nil {
		Fail(w, http.StatusBadRequest, "the body is not JSON: "+err.Error())
		return
	}
	if _, ok := doc.(map[string]any); !ok {
		failAt(w, "", "the record is not a JSON object")
		return
	}
	// server.json alone: what is not one of its fields (the directory's
	// is_official, popularity, edited, source…) is refused, not ignored.
	if k := unknownField(doc.(map[string]any)); k != "" {
		failAt(w, "/"+pointerToken(k), "the record has "+strconv.Quote(k)+", which is not a server.json field (they are "+strings.Join(registry.ServerFields(), ", ")+")")
		return
	}
	rs, err := resolvedSchema()
	if err != nil {
		a.internal(w, r, err)
		return
	}
	if err := rs.Validate(doc); err != nil {
		path, msg := schemaError(rs, doc, err)
		failAt(w, path, "the record breaks server.schema.json at "+path+": "+msg)
		return
	}
	// The record as published, with what its publisher put in _meta under
	// its own reverse-DNS keys; the registry's and the directory's
	// namespaces are theirs to say (dropped).
	m := doc.(map[string]any)
	delete(m, "$schema")
	if meta, ok := m["_meta"].(map[string]any); ok {
		for k := range meta {
			switch {
			case reservedMeta(k):
				delete(meta, k)
			case !publisherMeta(k):
				failAt(w, "/_meta/"+pointerToken(k), "_meta keys are reverse-DNS namespaces (com.example, com.example/key): "+strconv.Quote(k)+" is not one")
				return
			}
		}
	}
	server, _ := json.Marshal(m)
	name, version := m["name"].(string), m["version"].(string)
	if err := registry.ValidName(name); err != nil {
		failAt(w, "/name", err.Error())
		return
	}
	if err := mcpdir.ValidVersion(version); err != nil {
		failAt(w, "/version", err.Error())
		return
	}
	if r.Method == http.MethodPut && (name != r.PathValue("serverName") || version != r.PathValue("version")) {
		failAt(w, "/name", "the record's name and version must be the path's: "+name+" "+version)
		return
	}
	now := time.Now().UTC()
	v, err := registry.NewVersion(server, mcpdir.StatusActive, now, now)
	if re, ok := errors.AsType[*mcpdir.RecordError](err); ok {
		Fail(w, http.StatusBadRequest, "the record cannot be an entry: "+re.Error())
		return
	} else if err != nil {
		a.internal(w, r, err)
		return
	}
	// What clients would install from it must be safe to install as given
	// (a sync keeps such a record, without install links).
	if e, err := importer.ParseRecord(server); err == nil {
		if ie, ok := errors.AsType[*mcpdir.InstallError](mcpdir.CheckInstall(e)); ok {
			failAt(w, ie.Pointer(), "the record cannot be installed safely at "+ie.Pointer()+": "+ie.Reason)
			return
		}
	}
	// The name and version as published: the entry's are cut to its bounds.
	v.Name, v.Version = name, version
	vs, ok := a.serverVersions(w, r, name)
	if !ok {
		return
	}
	if i := slices.IndexFunc(vs, func(o *mcpdir.ServerVersion) bool { return o.Version == version }); i >= 0 {
		v.Status, v.StatusMessage, v.StatusChangedAt, v.PublishedAt = vs[i].Status, vs[i].StatusMessage, vs[i].StatusChangedAt, vs[i].PublishedAt
	} else if i := slices.IndexFunc(vs, func(o *mcpdir.ServerVersion) bool {
		return mcpdir.CanonicalVersion(o.Version) == mcpdir.CanonicalVersion(version)
	}); i >= 0 {
		// One string per release: "v1.0.0" is "1.0.0" published again.
		versionTaken(w, version, vs[i].Version)
		return
	}
	a.keep(w, r, []*mcpdir.ServerVersion{v}, false)
}

// delete marks a version deleted: it leaves search and the list, but
// stays for registries that follow this one (with updated_since, or
// include_deleted=true). A server whose every version is deleted leaves
// the directory.
func (a *API) delete(w http.ResponseWriter, r *http.Request) {
	v, ok := a.existing(w, r)
	if !ok {
		return
	}
	if v.Status == mcpdir.StatusDeleted {
		a.respond(w, r, v)
		return
	}
	v.Status, v.StatusChangedAt = mcpdir.StatusDeleted, time.Now().UTC()
	a.keep(w, r, []*mcpdir.ServerVersion{v}, false)
}

// statusUpdate is a PATCH …/status body.
type statusUpdate struct {
	Status        string  `json:"status"`
	StatusMessage *string `json:"statusMessage"`
}

func (a *API) readStatus(w http.ResponseWriter, r *http.Request) (statusUpdate, bool) {
	var u statusUpdate
	body, ok := readBody(w, r)
	if !ok {
		return u, false
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&u); err != nil {
		Fail(w, http.StatusBadRequest, "the body is not a status update: "+err.Error())
		return u, false
	}
	switch u.Status {
	case mcpdir.StatusActive, mcpdir.StatusDeprecated, mcpdir.StatusDeleted:
	default:
		failAt(w, "/status", "Invalid status value: status is active, deprecated or deleted")
		return u, false
	}
	if u.StatusMessage != nil && utf8.RuneCountInString(*u.StatusMessage) > maxStatusMessage {
		failAt(w, "/statusMessage", "statusMessage is at most "+strconv.Itoa(maxStatusMessage)+" characters")
		return u, false
	}
	return u, true
}

// apply changes a version's status; it reports whether anything changed.
func (u statusUpdate) apply(v *mcpdir.ServerVersion, now time.Time) bool {
	msg := v.StatusMessage
	if u.StatusMessage != nil {
		msg = *u.StatusMessage
	} else if u.Status != v.Status {
		msg = ""
	}
	if u.Status == v.Status && msg == v.StatusMessage {
		return false
	}
	if u.Status != v.Status {
		v.StatusChangedAt = now
	}
	v.Status, v.StatusMessage = u.Status, msg
	return true
}

// setStatus is PATCH …/versions/{version}/status.
func (a *API) setStatus(w http.ResponseWriter, r *http.Request) {
	u, ok := a.readStatus(w, r)
	if !ok {
		return
	}
	v, ok := a.existing(w, r)
	if !ok {
		return
	}
	if !u.apply(v, time.Now().UTC()) {
		Fail(w, http.StatusBadRequest, "No changes to apply: status is already "+v.Status)
		return
	}
	a.keep(w, r, []*mcpdir.ServerVersion{v}, false)
}

// setStatusAll is PATCH /v0.1/servers/{serverName}/status: every version
// at once, in one transaction.
func (a *API) setStatusAll(w http.ResponseWriter, r *http.Request) {
	u, ok := a.readStatus(w, r)
	if !ok {
		return
	}
	vs, ok := a.serverVersions(w, r, r.PathValue("serverName"))
	if !ok {
		return
	}
	if len(vs) == 0 {
		Fail(w, http.StatusNotFound, "Server not found")
		return
	}
	now := time.Now().UTC()
	var changed []*mcpdir.ServerVersion
	for _, v := range vs {
		if u.apply(v, now) {
			changed = append(changed, v)
		}
	}
	a.keep(w, r, changed, true)
}

// existing is the version a path names, or a 404.
func (a *API) existing(w http.ResponseWriter, r *http.Request) (*mcpdir.ServerVersion, bool) {
	vs, ok := a.serverVersions(w, r, r.PathValue("serverName"))
	if !ok {
		return nil, false
	}
	for _, v := range vs {
		if v.Version == r.PathValue("version") {
			return v, true
		}
	}
	Fail(w, http.StatusNotFound, "Server version not found")
	return nil, false
}

func (a *API) serverVersions(w http.ResponseWriter, r *http.Request, name string) ([]*mcpdir.ServerVersion, bool) {
	if len(name) > maxName {
		return nil, true
	}
	vs, err := a.History.ServerVersions(r.Context(), []string{name})
	if err != nil {
		a.unavailable(w, r, err)
		return nil, false
	}
	return vs, true
}

// keep writes versions and answers with them as they are now: one, or
// (all) the bulk status answer.
func (a *API) keep(w http.ResponseWriter, r *http.Request, vs []*mcpdir.ServerVersion, all bool) {
	if len(vs) > 0 {
		if err := a.Keep(r.Context(), vs); err != nil {
			if oe, ok := errors.AsType[*registry.OwnedError](err); ok {
				// Another source's server: the directory's trust model.
				writeJSON(w, http.StatusConflict, map[string]string{"error": oe.Error(), "code": CodeOwned, "path": "/name"})
				return
			}
			a.unavailable(w, r, err)
			return
		}
		a.VersionsChanged()
		a.audit(r, vs)
	}
	now, ok := a.serverVersionsOf(w, r, vs)
	if !ok {
		return
	}
	if !all {
		a.respond(w, r, now[0])
		return
	}
	out := struct {
		UpdatedCount int      `json:"updatedCount"`
		Servers      []Server `json:"servers"`
	}{UpdatedCount: len(vs), Servers: []Server{}}
	for _, v := range now {
		out.Servers = append(out.Servers, a.render(v, now))
	}
	writeJSON(w, http.StatusOK, out)
}

// audit records a write: a publish (POST, PUT), a deletion (DELETE) or a
// change of status (PATCH), one record a version.
func (a *API) audit(r *http.Request, vs []*mcpdir.ServerVersion) {
	if a.Audit == nil {
		return
	}
	action := map[string]string{http.MethodPost: "registry.publish", http.MethodPut: "registry.publish",
		http.MethodDelete: "registry.delete", http.MethodPatch: "registry.status"}[r.Method]
	for _, v := range vs {
		changes, _ := json.Marshal(map[string]string{"status": v.Status, "status_message": v.StatusMessage})
		a.Audit(r.Context(), mcpdir.AuditRecord{Actor: mcpdir.ActorOf(r.Context()), Action: action, Target: v.Name + "@" + v.Version, Changes: changes})
	}
}

// serverVersionsOf reads back the versions written, as stored.
func (a *API) serverVersionsOf(w http.ResponseWriter, r *http.Request, vs []*mcpdir.ServerVersion) ([]*mcpdir.ServerVersion, bool) {
	if len(vs) == 0 {
		return nil, true
	}
	all, ok := a.serverVersions(w, r, vs[0].Name)
	if !ok {
		return nil, false
	}
	var out []*mcpdir.ServerVersion
	for _, v := range vs {
		if i := slices.IndexFunc(all, func(o *mcpdir.ServerVersion) bool { return o.Version == v.Version }); i >= 0 {
			out = append(out, all[i])
		} else if i := slices.IndexFunc(all, func(o *mcpdir.ServerVersion) bool {
			return mcpdir.CanonicalVersion(o.Version) == mcpdir.CanonicalVersion(v.Version)
		}); i >= 0 {
			// Another publish of the release under another string won
			// the race: Keep skipped this one.
			versionTaken(w, v.Version, all[i].Version)
			return nil, false
		}
	}
	if len(out) != len(vs) {
		a.internal(w, r, errors.New("a version written is not there"))
		return nil, false
	}
	return out, true
}

// respond answers one version as the read API serves it.
func (a *API) respond(w http.ResponseWriter, r *http.Request, v *mcpdir.ServerVersion) {
	all, ok := a.serverVersions(w, r, v.Name)
	if !ok {
		return
	}
	writeJSON(w, http.StatusOK, a.render(v, all))
}

// render is a version with the official meta saying whether it is the
// latest of all.
func (a *API) render(v *mcpdir.ServerVersion, all []*mcpdir.ServerVersion) Server {
	i := mcpdir.LatestVersion(all)
	return historic(v, v.Name, i >= 0 && all[i].Version == v.Version)
}

// writing is write, or a 501 when this registry does not take writes.
func (a *API) writing(write http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if a.Keep == nil || a.History == nil {
			Fail(w, http.StatusNotImplemented, "Publishing is not supported by this registry")
			return
		}
		write(w, r)
	})
}

func (a *API) internal(w http.ResponseWriter, r *http.Request, err error) {
	if a.Log != nil {
		a.Log.ErrorContext(r.Context(), "registry API", "err", err)
	}
	Fail(w, http.StatusInternalServerError, "internal error")
}

// readBody reads a write's body, at most a record's size.
func readBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, mcpdir.MaxRecordBytes))
	if err != nil {
		if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
			Fail(w, http.StatusRequestEntityTooLarge, "a record is at most "+strconv.Itoa(mcpdir.MaxRecordBytes)+" bytes")
		} else {
			Fail(w, http.StatusBadRequest, "the body could not be read")
		}
		return nil, false
	}
	return body, true
}

// versionTaken answers a publish of version, which is, canonically, the
// release the server has as existing.
func versionTaken(w http.ResponseWriter, version, existing string) {
	writeJSON(w, http.StatusConflict, map[string]string{
		"error":   "version " + strconv.Quote(version) + " is the release " + strconv.Quote(existing) + " of this server, which there is: publish it as " + strconv.Quote(existing) + ", or another release",
		"code":    CodeVersionTaken,
		"path":    "/version",
		"version": existing,
	})
}

// CodeOwned is the code of a 409 to a write of a server whose entry
// another source owns (the official registry's, the starter directory's,
// another registry's): a publisher here changes only what it published
// (docs/trust.md).
const CodeOwned = "owned_elsewhere"

// CodeVersionTaken is the code of a 409 to a publish whose version is,
// canonically (mcpdir.CanonicalVersion), one the server has under another
// string; the answer's "version" is that string.
const CodeVersionTaken = "version_taken"

// failAt answers 400 naming where in the body the fault is (a JSON
// pointer).
func failAt(w http.ResponseWriter, path, msg string) {
	writeJSON(w, http.StatusBadRequest, map[string]string{"error": msg, "path": path})
}

// writeJSON answers v as JSON, never HTML-escaped ("<key>", not
// "\u003ckey\u003e"): the body is application/json, and nosniff.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
}
