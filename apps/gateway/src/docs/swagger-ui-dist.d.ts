declare module 'swagger-ui-dist/absolute-path.js' {
  /** The directory of the swagger-ui-dist package. */
  function getAbsoluteFSPath(): string;
  export = getAbsoluteFSPath;
}
