import { Component, type ReactNode } from 'react';

/**
 * A page's code that fails to load (the console was updated since this tab opened it, or the network
 * dropped) says so in words and offers a reload, instead of leaving an empty page.
 */
export class PageLoadBoundary extends Component<{ children: ReactNode }, { failed: boolean }> {
  override state = { failed: false };

  static getDerivedStateFromError(): { failed: boolean } {
    return { failed: true };
  }

  override render() {
    if (!this.state.failed) return this.props.children;
    return (
      <section className="page">
        <h1 tabIndex={-1}>This page could not be loaded</h1>
        <p role="alert">
          The console may have been updated since this tab opened. <a href={window.location.href}>Reload</a>
        </p>
      </section>
    );
  }
}
