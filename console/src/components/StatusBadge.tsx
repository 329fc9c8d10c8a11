const WORDS = { available: 'Available', deprecated: 'Deprecated', disabled: 'Disabled' } as const;

export function StatusBadge({ status }: { status: keyof typeof WORDS }) {
  return <span className={`badge badge-${status}`}>{WORDS[status]}</span>;
}

export function TagBadge({ tag }: { tag: string }) {
  return <span className={tag === 'latest' ? 'badge badge-latest' : 'badge badge-tag'}>{tag}</span>;
}
