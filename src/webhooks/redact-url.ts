/**
 * A webhook URL as logs and error messages show it: userinfo, query and fragment replaced by
 * `***` / `…`, since receivers often take a token there (`https://host/hook?token=…`). API
 * answers to an admin key show the URL as registered; everything else uses this.
 */
export function redactUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    // Not a URL: keep what comes before anything that could hold a credential.
    return raw.replace(/[?#].*$/s, (m) => `${m[0]}…`).replace(/^(.*?\/\/)?[^/]*@/, '$1***@');
  }
  const userinfo = url.username || url.password ? '***@' : '';
  return `${url.protocol}//${userinfo}${url.host}${url.pathname}${url.search ? '?…' : ''}${url.hash ? '#…' : ''}`;
}
