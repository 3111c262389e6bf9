import { ApiError } from './api-error';
import { JSON_MEDIA_TYPE, parseJsonBody } from './json-body';

describe('JSON media types', () => {
  it.each([
    'application/json',
    'application/json; charset=utf-8',
    'application/json;charset=iso-8859-1',
    'application/merge-patch+json',
    'application/vnd.petstore.v1+json; charset=utf-8',
    'application/problem+json',
  ])('%s is JSON', (type) => {
    expect(JSON_MEDIA_TYPE.test(type)).toBe(true);
  });

  it.each(['text/plain', 'application/x-www-form-urlencoded', 'application/jsonx', 'application/json-patch', 'text/json', 'multipart/form-data; boundary=x', 'application/xml'])(
    '%s is not JSON',
    (type) => {
      expect(JSON_MEDIA_TYPE.test(type)).toBe(false);
    },
  );
});

describe('parseJsonBody', () => {
  const code = (raw: Buffer) => {
    try {
      parseJsonBody(raw);
      return undefined;
    } catch (error) {
      return (error as ApiError).code;
    }
  };

  it('parses JSON and treats an empty body as none', () => {
    expect(parseJsonBody(Buffer.from('{"name":"Rex","n":[1,2]}'))).toEqual({ name: 'Rex', n: [1, 2] });
    expect(parseJsonBody(Buffer.from('null'))).toBeNull();
    expect(parseJsonBody(Buffer.alloc(0))).toBeUndefined();
    expect(parseJsonBody(Buffer.from('{"name":"Möhre 🐇"}'))).toEqual({ name: 'Möhre 🐇' });
  });

  it('keeps __proto__ as a plain field, for the schema to refuse', () => {
    const body = parseJsonBody(Buffer.from('{"__proto__":{"admin":true}}')) as object;
    expect(Object.getPrototypeOf(body)).toBe(Object.prototype);
    expect(Object.keys(body)).toEqual(['__proto__']);
  });

  it.each([
    ['truncated JSON', '{"name":'],
    ['a trailing comma', '{"a":1,}'],
    ['single quotes', "{'a':1}"],
    ['two documents', '{} {}'],
    ['white space only', '   '],
  ])('refuses %s as INVALID_JSON', (_, text) => {
    expect(code(Buffer.from(text))).toBe('INVALID_JSON');
  });

  it('refuses bytes that are not UTF-8', () => {
    expect(code(Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d]))).toBe('INVALID_JSON');
  });
});
