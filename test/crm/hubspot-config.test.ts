import { inspect } from 'node:util';
import { ConfigError, loadConfig, Secret } from '../../src/config';
import { hubSpotClientFromConfig } from '../../src/crm/hubspot/hubspot-client';

const TOKEN = 'pat-eu1-abcdef01-2345-6789-abcd-ef0123456789';

describe('HubSpot configuration', () => {
  it('reads HUBSPOT_TOKEN as a secret that never prints', () => {
    const config = loadConfig({ HUBSPOT_TOKEN: ` ${TOKEN} ` });
    expect(config.hubspotToken).toBeInstanceOf(Secret);
    expect(config.hubspotToken!.reveal()).toBe(TOKEN);
    for (const printed of [
      JSON.stringify(config),
      inspect(config),
      String(config.hubspotToken),
      `${inspect({ nested: { config } }, { depth: 5 })}`,
    ]) {
      expect(printed).not.toContain(TOKEN);
      expect(printed).toContain('redacted');
    }
  });

  it('defaults HUBSPOT_BASE_URL to HubSpot and drops a trailing slash', () => {
    expect(loadConfig({}).hubspotBaseUrl).toBe('https://api.hubapi.com');
    expect(loadConfig({ HUBSPOT_BASE_URL: 'http://127.0.0.1:9000/' }).hubspotBaseUrl).toBe(
      'http://127.0.0.1:9000',
    );
  });

  it.each([
    [
      { HUBSPOT_BASE_URL: 'api.hubapi.com' },
      'HUBSPOT_BASE_URL must be an http:// or https:// URL, got "api.hubapi.com"',
    ],
    [
      { HUBSPOT_TOKEN: 'pat na1 secret' },
      'HUBSPOT_TOKEN must be visible ASCII characters without spaces (it travels as "Authorization: Bearer <token>")',
    ],
  ])('rejects %j without echoing a token', (env, message) => {
    expect(() => loadConfig(env)).toThrow(new ConfigError(message));
  });

  it('makes a client only when a token is configured', () => {
    expect(hubSpotClientFromConfig(loadConfig({}))).toBeNull();
    expect(hubSpotClientFromConfig(loadConfig({ HUBSPOT_TOKEN: TOKEN }))).toMatchObject({
      fetchPipelines: expect.any(Function),
    });
  });
});
