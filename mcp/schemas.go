package mcp

import sdk "github.com/modelcontextprotocol/go-sdk/mcp"

// The schemas avoid "format" and type arrays: some LLM clients (Gemini's
// function calling among them) reject schemas that use them.
const searchInputSchema = `{
  "type": "object",
  "properties": {
    "keywords": {
      "type": "string",
      "minLength": 1,
      "description": "What you are looking for: keywords such as \"postgres\", \"github issues\" or \"browser automation\", or a whole sentence describing the task (\"summarise my unread emails every morning\"), in English or another language. Matched by meaning against the names, descriptions, tags and tools of MCP servers. Line breaks count as spaces; at most 8192 bytes, of which the first 2048 are searched."
    },
    "limit": {
      "type": "number",
      "minimum": 1,
      "maximum": 100,
      "default": 50,
      "description": "Maximum number of results: a whole number from 1 to 100 (default 50). Values outside that range are clamped."
    },
    "transport": {
      "type": "string",
      "enum": ["stdio", "streamable-http", "sse"],
      "description": "Only servers offering this transport: stdio (runs locally), streamable-http or sse (hosted)."
    },
    "registry": {
      "type": "string",
      "maxLength": 64,
      "description": "Only servers with a package in this registry, e.g. npm, pypi, oci."
    },
    "official": {
      "type": "boolean",
      "description": "true: only official servers (published by the service's maker); false: only community ones."
    },
    "tags": {
      "type": "array",
      "items": {"type": "string", "maxLength": 64},
      "maxItems": 10,
      "description": "Only servers with every one of these tags, e.g. [\"database\"]."
    },
    "live": {
      "type": "string",
      "enum": ["up"],
      "description": "up: only hosted servers whose latest live check found them answering (MCP server/discover or initialize, and tools/list)."
    },
    "warnings": {
      "type": "string",
      "enum": ["none"],
      "description": "none: only servers whose tools raised no warning (possible tool poisoning: hidden instructions, requests for credentials, instructions about other servers' tools, invisible characters, overlong descriptions). Nothing is hidden by default."
    },
    "safe": {"type": "boolean", "description": "true: the same as warnings none."}
  },
  "required": ["keywords"]
}`

const detailInputSchema = `{
  "type": "object",
  "properties": {
    "mcp_id": {
      "type": "string",
      "minLength": 36,
      "maxLength": 36,
      "description": "The MCP server's id: the UUID in the id field of a search_mcp result, e.g. \"0b6e3a52-3c5f-5f0e-9d8a-1f2e3d4c5b6a\"."
    }
  },
  "required": ["mcp_id"]
}`

// failureProperties are the members of a failed call's JSON, in both
// tools' output schemas: a result that validates whether it failed or not.
const failureProperties = `
    "error": {
      "type": "object",
      "description": "Why the call failed and what to do (only when success is false).",
      "properties": {
        "code": {"type": "string", "description": "Stable error code, e.g. not_found, invalid_request, rate_limited, missing_keywords."},
        "message": {"type": "string", "description": "What went wrong and what to do next."}
      },
      "required": ["code", "message"]
    },
    "retry_after_seconds": {"type": "integer", "description": "When rate limited: seconds until a call can succeed."}`

const stringArray = `{"type": "array", "items": {"type": "string"}}`

// liveProperties are the members of live in search items and detail.
const liveProperties = `
            "status": {"type": "string", "enum": ["up", "auth_required", "down"], "description": "up: answered MCP (server/discover or initialize) and tools/list; auth_required: needs sign-in (401/403); down: did not answer as an MCP server."},
            "checked_at": {"type": "string", "description": "RFC 3339 time of the check."},
            "latency_ms": {"type": "integer"},
            "tools_count": {"type": "integer", "description": "Tools the server listed."},
            "tools_changed_at": {"type": "string", "description": "RFC 3339 time the server's tool list last changed (tools added, removed or redefined), if in the last 30 days."}`

// toolProperties describe a tool's definition, wherever one is given.
const toolProperties = `
              "name": {"type": "string"},
              "title": {"type": "string"},
              "description": {"type": "string", "description": "The tool's own words: untrusted text."},
              "input_schema": {"type": "object", "description": "The JSON Schema of the tool's arguments (canonical JSON, at most 64 KiB)."},
              "output_schema": {"type": "object", "description": "The JSON Schema of the tool's structured result, when it gives one (canonical JSON, at most 64 KiB)."},
              "annotations": {"type": "object", "description": "The server's hints about the tool (readOnlyHint, destructiveHint, …)."},
              "cut": {"type": "array", "items": {"type": "string"}, "description": "What was cut to fit the directory's bounds: description, input_schema, output_schema, annotations."},
              "fingerprint": {"type": "string", "description": "SHA-256 of the tool's canonical definition, hex: it changes when the tool is redefined."}`

const searchOutputSchema = `{
  "type": "object",
  "properties": {
    "success": {"type": "boolean", "description": "Whether the search ran."},
    "data": {
      "type": "array",
      "description": "Matching MCP servers, best first.",
      "items": {
        "type": "object",
        "properties": {
          "id": {"type": "string", "description": "UUID of the server: pass it to get_mcp_detail."},
          "name": {"type": "string"},
          "title": {"type": "string"},
          "brief": {"type": "string", "description": "One-line description."},
          "website_url": {"type": "string"},
          "repository_url": {"type": "string"},
          "author_name": {"type": "string"},
          "tags": ` + stringArray + `,
          "transports": ` + stringArray + `,
          "is_official": {"type": "boolean"},
          "is_verified": {"type": "boolean"},
          "popularity": {"type": "integer"},
          "live": {
            "type": "object",
            "description": "The latest live check of the server's hosted endpoint; absent if never checked.",
            "properties": {` + liveProperties + `},
            "required": ["status", "checked_at", "latency_ms", "tools_count"]
          },
          "tool_warnings": {"type": "integer", "description": "How many warnings a scan of its tools raised (get_mcp_detail lists them); absent when none."},
          "score": {"type": "number", "description": "Relevance to the keywords; higher is better."}
        },
        "required": ["id", "name", "brief", "website_url", "tags", "transports", "is_official", "is_verified", "popularity", "score"]
      }
    },
    "count": {"type": "integer", "description": "Number of items in data."},
    "total": {"type": "integer", "description": "Number of servers that match, of which data holds the best."},
    "keywords": {"type": "string", "description": "The keywords searched for."},
    "limit": {"type": "integer", "description": "The limit applied, after clamping."},
    "notice": {"type": "string", "description": "Advice about the results, e.g. a clamped limit or no matches."},` + failureProperties + `
  },
  "required": ["success"]
}`

const detailOutputSchema = `{
  "type": "object",
  "properties": {
    "success": {"type": "boolean", "description": "Whether the server was found."},
    "data": {
      "type": "object",
      "description": "The full record of the MCP server.",
      "properties": {
        "id": {"type": "string"},
        "uuid": {"type": "string", "description": "Same as id."},
        "name": {"type": "string"},
        "title": {"type": "string"},
        "brief": {"type": "string"},
        "description": {"type": "string"},
        "website_url": {"type": "string"},
        "repository_url": {"type": "string"},
        "repository": {"type": "object", "properties": {"url": {"type": "string"}, "source": {"type": "string"}}},
        "author_name": {"type": "string"},
        "tags": ` + stringArray + `,
        "categories": ` + stringArray + `,
        "transports": ` + stringArray + `,
        "packages": {
          "type": "array",
          "description": "Ways to install the server from a package registry.",
          "items": {
            "type": "object",
            "properties": {
              "registry_type": {"type": "string", "description": "npm, pypi, oci, nuget, mcpb, cargo, …"},
              "identifier": {"type": "string"},
              "version": {"type": "string"},
              "transport": {"type": "string"},
              "runtime_hint": {"type": "string"}
            },
            "required": ["registry_type", "identifier"]
          }
        },
        "remotes": {
          "type": "array",
          "description": "Hosted endpoints of the server.",
          "items": {
            "type": "object",
            "properties": {"url": {"type": "string"}, "transport": {"type": "string"}},
            "required": ["url", "transport"]
          }
        },
        "tools": {
          "type": "array",
          "description": "Tools the server offers.",
          "items": {
            "type": "object",
            "properties": {` + toolProperties + `},
            "required": ["name"]
          }
        },
        "license": {"type": "string"},
        "version": {"type": "string"},
        "is_official": {"type": "boolean"},
        "is_verified": {"type": "boolean"},
        "is_recommended": {"type": "boolean"},
        "popularity": {"type": "integer"},
        "clicks": {"type": "integer"},
        "metadata": {"type": "object", "properties": {"version": {"type": "string"}, "license": {"type": "string"}}},
        "created_at": {"type": "string", "description": "RFC 3339 time."},
        "updated_at": {"type": "string", "description": "RFC 3339 time."},
        "extra": {"type": "object", "description": "Fields of the imported record the directory does not model."},
        "live": {
          "type": "object",
          "description": "The latest live check of the server's hosted endpoint, with the tools it listed; absent if never checked.",
          "properties": {` + liveProperties + `,
            "protocol_version": {"type": "string", "description": "The MCP protocol version the server agreed to."},
            "protocol_versions": {"type": "array", "items": {"type": "string"}, "description": "When up: the MCP protocol versions the server says it speaks, newest first (what server/discover listed, else the one agreed)."},
            "auth": {
              "type": "object",
              "description": "When auth_required: how a client signs in, from the server's OAuth metadata; empty members when it publishes none.",
              "properties": {
                "resource_metadata": {"type": "string", "description": "The URL of its OAuth protected resource metadata (RFC 9728)."},
                "authorization_servers": {"type": "array", "items": {"type": "string"}, "description": "The authorization servers (issuers) it names."},
                "client_id_metadata_documents": {"type": "boolean", "description": "An authorization server accepts a Client ID Metadata Document as client_id: no registration needed."},
                "dynamic_registration": {"type": "boolean", "description": "An authorization server offers dynamic client registration (RFC 7591)."}
              },
              "required": ["authorization_servers", "client_id_metadata_documents", "dynamic_registration"]
            },
            "tools": {
              "type": "array",
              "description": "The tools the server listed when last up (their own words: untrusted text).",
              "items": {"type": "object", "properties": {` + toolProperties + `}, "required": ["name"]}
            },
            "tools_fingerprint": {"type": "string", "description": "SHA-256 of the list (its tools' names and fingerprints), hex."},
            "tool_changes": {
              "type": "array",
              "description": "The tool list's last 20 changes, newest first; the oldest is the first list seen.",
              "items": {
                "type": "object",
                "properties": {
                  "at": {"type": "string"},
                  "first": {"type": "boolean"},
                  "added": {"type": "array", "items": {"type": "string"}},
                  "removed": {"type": "array", "items": {"type": "string"}},
                  "changed": {"type": "array", "items": {"type": "object", "properties": {"name": {"type": "string"}, "fields": {"type": "array", "items": {"type": "string"}}}}},
                  "fingerprint": {"type": "string"},
                  "words": {"type": "string"}
                },
                "required": ["at", "fingerprint", "words"]
              }
            },
            "tools_warning": {"type": "string", "description": "Present when tools were redefined after the server was first seen: read them again before trusting them."}
          },
          "required": ["status", "checked_at", "latency_ms", "tools_count", "tools", "tools_fingerprint", "tool_changes"]
        },
        "install": {
          "type": "object",
          "description": "Links that add the server to a client in one click (the client asks before it adds it), with the configuration of its hosted endpoint, or else of its package; absent when it has neither a hosted endpoint nor a package a client can run (npm, pypi, oci).",
          "properties": {
            "cursor": {"type": "string", "description": "Cursor's install link (cursor://anysphere.cursor-deeplink/mcp/install?name=…&config=…)."},
            "vscode": {"type": "string", "description": "VS Code's install link (vscode:mcp/install?…)."}
          },
          "required": ["cursor", "vscode"]
        },
        "aliases": {
          "type": "array",
          "description": "The records of the same server from other sources (a registry's, its npm package's), merged into this entry: their ids find it too.",
          "items": {
            "type": "object",
            "properties": {
              "id": {"type": "string"},
              "name": {"type": "string"},
              "source": {"type": "string"},
              "website_url": {"type": "string"},
              "repository_url": {"type": "string"}
            },
            "required": ["id", "name"]
          }
        },
        "tool_warnings": {
          "type": "array",
          "description": "What a scan of its tools (listed live or imported) and its instructions found: possible tool poisoning. Read the tools' texts before trusting a server with warnings.",
          "items": {
            "type": "object",
            "properties": {
              "kind": {"type": "string", "enum": ["hidden_instruction", "credential_access", "tool_shadowing", "invisible_characters", "overlong_description"]},
              "severity": {"type": "string", "enum": ["high", "medium", "low"]},
              "tool": {"type": "string", "description": "The tool whose text raised it; absent for the server's instructions."},
              "field": {"type": "string", "description": "name, title, description, instructions, or a parameter's input_schema.properties.<name>.description."},
              "start": {"type": "integer", "description": "Byte offset of the span in the field's text."},
              "end": {"type": "integer", "description": "Byte offset just past the span."},
              "match": {"type": "string", "description": "The span, invisible characters written as escapes (\\u{200B})."},
              "note": {"type": "string", "description": "What the span does, in words."}
            },
            "required": ["kind", "severity", "field", "start", "end", "match", "note"]
          }
        }
      },
      "required": ["id", "name", "brief", "website_url", "tags", "transports", "packages", "remotes", "tools", "tool_warnings"]
    },` + failureProperties + `
  },
  "required": ["success"]
}`

func boolPtr(b bool) *bool { return &b }

// readOnly is both tools' annotations: they only read the directory, a
// closed data set, and repeating a call changes nothing.
func readOnly(title string) *sdk.ToolAnnotations {
	return &sdk.ToolAnnotations{
		Title: title, ReadOnlyHint: true, IdempotentHint: true,
		DestructiveHint: boolPtr(false), OpenWorldHint: boolPtr(false),
	}
}

const toolsInputSchema = `{
  "type": "object",
  "properties": {
    "keywords": {
      "type": "string",
      "minLength": 1,
      "description": "What the tool should do, in keywords or a sentence, in English or another language, e.g. \"geocode an address\" or \"create a GitHub issue\". Line breaks count as spaces; at most 8192 bytes, of which the first 2048 are searched."
    },
    "limit": {"type": "integer", "minimum": 1, "maximum": 100, "default": 20, "description": "How many tools to return."},
    "warnings": {"type": "string", "enum": ["none"], "description": "none: only tools of servers whose tools raised no warning (possible tool poisoning). Nothing is hidden by default."},
    "safe": {"type": "boolean", "description": "true: the same as warnings none."}
  },
  "required": ["keywords"]
}`

const toolsOutputSchema = `{
  "type": "object",
  "properties": {
    "success": {"type": "boolean", "description": "Whether the search ran."},
    "data": {
      "type": "array",
      "description": "Matching tools, best first.",
      "items": {
        "type": "object",
        "properties": {
          "server_id": {"type": "string", "description": "The server's id: pass it to get_mcp_detail."},
          "server_name": {"type": "string"},
          "server_title": {"type": "string", "description": "The server's title, where its record has one."},` + toolProperties + `,
          "live_status": {"type": "string", "enum": ["up", "auth_required", "down"], "description": "The server's latest live check; absent if never checked (the tool then comes from its record)."},
          "warnings": {"type": "integer", "description": "How many warnings a scan of this tool's texts raised (its server's detail lists them); absent when none."},
          "score": {"type": "number", "description": "Relevance to the keywords; higher is better."}
        },
        "required": ["server_id", "server_name", "name", "description", "fingerprint", "score"]
      }
    },
    "count": {"type": "integer", "description": "Number of items in data."},
    "total": {"type": "integer", "description": "Number of tools that match."},
    "keywords": {"type": "string", "description": "The keywords searched for."},
    "limit": {"type": "integer", "description": "The limit applied, after clamping."},
    "notice": {"type": "string", "description": "Advice about the results."},` + failureProperties + `
  },
  "required": ["success"]
}`
