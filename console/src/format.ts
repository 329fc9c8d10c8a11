const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });
const dateTimeFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

export const formatDate = (iso: string) => dateFormat.format(new Date(iso));
export const formatDateTime = (iso: string) => dateTimeFormat.format(new Date(iso));

/** A console link to an Expert key; `@` and `/` stay readable in the address bar. */
export const expertPath = (key: string) =>
  `/experts/${key.split('/').map(encodeURIComponent).join('/').replace(/%40/g, '@')}`;
