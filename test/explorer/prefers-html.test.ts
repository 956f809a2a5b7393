import { prefersHtml } from '../../src/explorer/prefers-html';

describe('prefersHtml', () => {
  it('is true for what browsers send when navigating', () => {
    expect(prefersHtml('text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8')).toBe(
      true,
    );
    expect(prefersHtml('text/html')).toBe(true);
  });

  it('is false for GraphQL clients and wildcards', () => {
    expect(prefersHtml(undefined)).toBe(false);
    expect(prefersHtml('*/*')).toBe(false);
    expect(prefersHtml('application/graphql-response+json, application/json;q=0.9')).toBe(false);
    expect(prefersHtml('application/json, text/html')).toBe(false);
  });

  it('follows q-values when both are named', () => {
    expect(prefersHtml('application/json;q=0.5, text/html')).toBe(true);
    expect(prefersHtml('text/html;q=0.2, application/json')).toBe(false);
    expect(prefersHtml('text/html;q=0')).toBe(false);
  });
});
