interface Place {
  pathname: string;
  search: string;
  hash: string;
}

/** The login page, remembering where to return after logging in. */
export function loginPath(from: Place): string {
  const next = from.pathname + from.search + from.hash;
  if (from.pathname === "/" || from.pathname === "/login") return "/login";
  return `/login?next=${encodeURIComponent(next)}`;
}

/**
 * Where to go after logging in: `next` if it is a path of this console,
 * never another origin ("//host" or "/\host" would be), nor login itself.
 */
export function afterLogin(next: string | null): string {
  if (!next?.startsWith("/") || next.startsWith("//") || next.startsWith("/\\") || next.startsWith("/login")) {
    return "/";
  }
  return next;
}
