export * from './asyncapi-document';
