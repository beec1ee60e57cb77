import { describe, expect, it } from 'vitest';
import { App } from 'aws-cdk-lib';
import { edgeRoutes } from '#shared/platform/http/routes.ts';
import { ROUTES } from '#functions/routes.ts';
import { ACCESS_LOG_FIELDS } from '../../lib/api.ts';
import { DEFAULT_ACCESS_LOG_RETENTION, DEFAULT_PUBLIC_THROTTLE, DEFAULT_THROTTLE, readSettings } from '../../lib/app.ts';
import { functionOfRoute, ofType, referencedId, resourcesOf, synthesize, type Resources } from './template.ts';

const { stacks } = synthesize();
const [{ template }] = stacks as [(typeof stacks)[number]];
const resources = resourcesOf(template);

function stageOf(of: Resources) {
  const stages = ofType(of, 'AWS::ApiGatewayV2::Stage');
  expect(stages).toHaveLength(1);
  return stages[0]![1].Properties;
}

const publicKeys = edgeRoutes(ROUTES)
  .filter((route) => route.route.throttle === 'public')
  .map((route) => `${route.method} ${route.path}`);

describe('API protection', () => {
  it('throttles the whole stage by default, and the public routes (their HEAD and preflight too) tighter', () => {
    const stage = stageOf(resources);
    expect(stage).toMatchObject({
      StageName: '$default',
      AutoDeploy: true,
      DefaultRouteSettings: { ThrottlingRateLimit: DEFAULT_THROTTLE.rateLimit, ThrottlingBurstLimit: DEFAULT_THROTTLE.burstLimit },
    });
    expect(publicKeys).toEqual(
      expect.arrayContaining([
        'POST /api/forms/{id}/submit',
        'GET /api/forms/public/{slug}',
        'HEAD /f/{slug}',
        'OPTIONS /api/forms/{id}/submit',
        'POST /unsubscribe/{token}',
      ]),
    );
    expect(Object.keys(stage.RouteSettings).sort()).toEqual([...publicKeys].sort());
    for (const key of publicKeys) {
      expect(stage.RouteSettings[key], key).toEqual({
        ThrottlingRateLimit: DEFAULT_PUBLIC_THROTTLE.rateLimit,
        ThrottlingBurstLimit: DEFAULT_PUBLIC_THROTTLE.burstLimit,
      });
    }
    expect(DEFAULT_PUBLIC_THROTTLE.rateLimit).toBeLessThan(DEFAULT_THROTTLE.rateLimit);
  });

  it('writes one JSON access-log line per request, without headers, query or path, to a log group with a retention', () => {
    const { AccessLogSettings } = stageOf(resources);
    expect(JSON.parse(AccessLogSettings.Format)).toEqual(ACCESS_LOG_FIELDS);
    expect(AccessLogSettings.Format).not.toMatch(/\$context\.(path|identity\.apiKey)|\$input|\$request/);
    const logGroup = resources[referencedId(AccessLogSettings.DestinationArn)]!;
    expect(logGroup).toMatchObject({ Type: 'AWS::Logs::LogGroup', Properties: { RetentionInDays: DEFAULT_ACCESS_LOG_RETENTION } });
  });

  it("answers HEAD wherever GET is answered, with the GET route's function", () => {
    const routes = ofType(resources, 'AWS::ApiGatewayV2::Route').map(([, route]) => route);
    const byKey = (key: string) => routes.find((route) => route.Properties.RouteKey === key);
    for (const get of ROUTES.filter((route) => route.method === 'GET')) {
      const head = byKey(`HEAD ${get.path}`);
      expect(head, `HEAD ${get.path}`).toBeDefined();
      expect(functionOfRoute(resources, head!)).toBe(functionOfRoute(resources, byKey(`GET ${get.path}`)!));
    }
  });

  it("has a CORS preflight route only for the paths of cors routes, all public; only their functions and the preflight's get the allowed origins", () => {
    const preflights = ofType(resources, 'AWS::ApiGatewayV2::Route')
      .map(([, route]) => route.Properties.RouteKey as string)
      .filter((key) => key.startsWith('OPTIONS '));
    expect(preflights.sort()).toEqual(['OPTIONS /api/forms/public/{slug}', 'OPTIONS /api/forms/{id}/submit']);
    expect(ROUTES.filter((route) => 'cors' in route && route.cors).every((route) => route.auth === 'public')).toBe(true);
    const withOrigins = ofType(resources, 'AWS::Lambda::Function')
      .filter(([, fn]) => fn.Properties.Environment?.Variables?.CORS_ALLOWED_ORIGINS !== undefined)
      .map(([, fn]) => [fn.Properties.Description, fn.Properties.Environment.Variables.CORS_ALLOWED_ORIGINS]);
    expect(withOrigins.sort()).toEqual([
      ['Postlane functions/forms/get-public.ts', '*'],
      ['Postlane functions/forms/submit.ts', '*'],
      ['Postlane functions/system/preflight.ts', '*'],
    ]);
    // API Gateway's own CORS would answer every route's preflight, keyed ones included.
    for (const [, api] of ofType(resources, 'AWS::ApiGatewayV2::Api')) expect(api.Properties.CorsConfiguration).toBeUndefined();
  });

  it('takes the limits, retention and origins from context, and refuses values that are no such thing', () => {
    const context = {
      'postlane:regions': 'eu-west-1',
      'postlane:throttleRate': '40',
      'postlane:throttleBurst': '80',
      'postlane:publicThrottleRate': '5',
      'postlane:publicThrottleBurst': '10',
      'postlane:accessLogRetentionDays': '90',
      'postlane:corsOrigins': 'https://www.example.com,https://shop.example.com',
    };
    const [custom] = synthesize(context).stacks;
    const customResources = resourcesOf(custom!.template);
    const stage = stageOf(customResources);
    expect(stage.DefaultRouteSettings).toEqual({ ThrottlingRateLimit: 40, ThrottlingBurstLimit: 80 });
    expect(stage.RouteSettings['POST /api/forms/{id}/submit']).toEqual({ ThrottlingRateLimit: 5, ThrottlingBurstLimit: 10 });
    expect(customResources[referencedId(stage.AccessLogSettings.DestinationArn)]!.Properties.RetentionInDays).toBe(90);
    for (const handler of ['forms/submit', 'system/preflight']) {
      const fn = ofType(customResources, 'AWS::Lambda::Function').find(([, one]) => one.Properties.Description === `Postlane functions/${handler}.ts`)!;
      expect(fn[1].Properties.Environment.Variables.CORS_ALLOWED_ORIGINS, handler).toBe('https://www.example.com,https://shop.example.com');
    }

    const settingsWith = (extra: Record<string, string>) => readSettings(new App({ context: extra }).node);
    expect(() => settingsWith({ 'postlane:throttleRate': '0' })).toThrow('postlane:throttleRate');
    expect(() => settingsWith({ 'postlane:publicThrottleBurst': 'lots' })).toThrow('postlane:publicThrottleBurst');
    expect(() => settingsWith({ 'postlane:accessLogRetentionDays': '10' })).toThrow('postlane:accessLogRetentionDays');
    expect(() => settingsWith({ 'postlane:corsOrigins': 'www.example.com' })).toThrow('postlane:corsOrigins');
  });
});
