import { Link } from 'react-router';

export function NotFound() {
  return (
    <section className="page">
      <h1 tabIndex={-1}>Page not found</h1>
      <p>There is no page at this address.</p>
      <p>
        <Link to="/">Browse the registry</Link>
      </p>
    </section>
  );
}
