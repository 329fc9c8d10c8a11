// Frames the API reference (Swagger UI at /docs) as a page of Cadre: a header with the logo and the way
// back to the console, and a main landmark around the viewer. Served as a file of its own, so the page's
// Content-Security-Policy needs no inline script.
(() => {
  const viewer = document.getElementById('swagger-ui');
  if (!viewer) return;
  const header = document.createElement('header');
  header.className = 'cadre-header';
  const brand = document.createElement('a');
  brand.className = 'cadre-brand';
  brand.href = '/';
  const logo = document.createElement('img');
  logo.src = '/docs/static/theme/cadre.svg';
  logo.alt = '';
  logo.width = 24;
  logo.height = 24;
  brand.append(logo, 'Cadre');
  const title = document.createElement('h1');
  title.textContent = 'API reference';
  const back = document.createElement('a');
  back.className = 'cadre-back';
  back.href = '/home';
  back.textContent = 'Back to the console';
  header.append(brand, title, back);
  const main = document.createElement('main');
  main.id = 'main';
  viewer.replaceWith(main);
  main.append(viewer);
  main.before(header);

  // Swagger UI's own dark theme (the class its top bar's toggle sets), following the system as the console does.
  const dark = matchMedia('(prefers-color-scheme: dark)');
  const applyScheme = () => document.documentElement.classList.toggle('dark-mode', dark.matches);
  applyScheme();
  dark.addEventListener('change', applyScheme);

  // What Swagger UI renders without a name or a way in by keyboard, named as it appears: a parameter's
  // choice list by its parameter, a scrolling example reachable with Tab.
  const mend = () => {
    for (const select of viewer.querySelectorAll('tr[data-param-name] select:not([aria-label])')) {
      select.setAttribute('aria-label', select.closest('tr')?.dataset.paramName ?? 'Value');
    }
    for (const example of viewer.querySelectorAll('pre.microlight:not([tabindex])')) {
      example.setAttribute('tabindex', '0');
    }
  };
  new MutationObserver(mend).observe(viewer, { childList: true, subtree: true });
})();
