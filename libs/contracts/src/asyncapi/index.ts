export * from './asyncapi-document';
export * from './asyncapi-markdown';
