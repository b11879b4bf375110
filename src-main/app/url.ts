// The URL rules the shells check flags and requests with: an http(s) URL, a service's base URL and the Host
// headers a local server answers. core/url decides them; the plain rules every runtime shares (loopback hosts,
// hidden credentials, an API key that would cross plain http) are src-shared/url's.
export { baseUrlSchema, hostHeaderAllowed, httpUrlSchema } from '../core/url';
