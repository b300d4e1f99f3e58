// Preload (node --import) for the MCP conformance suite, which sends no
// Authorization header: every request made through undici (global fetch and
// undici's request) gets MCPDIR_E2E_AUTH as its Authorization header, unless
// it already has one. The undici used is the one the suite imports, so that
// its request() and Node's fetch share this dispatcher.
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";

const auth = process.env.MCPDIR_E2E_AUTH;
const suite = process.env.MCPDIR_E2E_SUITE; // the suite's entry file
if (!auth || !suite) {
  throw new Error("auth-preload: set MCPDIR_E2E_AUTH and MCPDIR_E2E_SUITE");
}
const undiciPath = createRequire(suite).resolve("undici");
const { Agent, setGlobalDispatcher } = await import(pathToFileURL(undiciPath).href);

const isAuth = (name) => String(name).toLowerCase() === "authorization";

// withAuth adds the header to any of the shapes undici accepts: none, a
// plain object, a flat [name, value, …] array, or [name, value] pairs.
function withAuth(headers) {
  if (headers == null) {
    return { authorization: auth };
  }
  if (Array.isArray(headers)) {
    if (headers.length > 0 && Array.isArray(headers[0])) {
      return headers.some(([n]) => isAuth(n)) ? headers : [...headers, ["authorization", auth]];
    }
    for (let i = 0; i < headers.length; i += 2) {
      if (isAuth(headers[i])) return headers;
    }
    return [...headers, "authorization", auth];
  }
  if (typeof headers[Symbol.iterator] === "function") {
    return withAuth([...headers]);
  }
  return Object.keys(headers).some(isAuth) ? headers : { ...headers, authorization: auth };
}

class AuthAgent extends Agent {
  dispatch(opts, handler) {
    return super.dispatch({ ...opts, headers: withAuth(opts.headers) }, handler);
  }
}

setGlobalDispatcher(new AuthAgent());
