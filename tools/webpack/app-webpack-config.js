// The one way every app is bundled: a Node bundle of src/main.ts with node_modules left
// external, written to dist/apps/<app> with a package.json (and lock file) listing only
// what the bundle imports, which is what the Dockerfile installs.
const { NxAppWebpackPlugin } = require('@nx/webpack/app-plugin');
const { basename, join } = require('path');

const WORKSPACE_ROOT = join(__dirname, '../..');

/** `appDir` is the app's folder (its webpack.config.js passes `__dirname`); its name names the output. */
function appWebpackConfig(appDir) {
  return {
    output: { path: join(WORKSPACE_ROOT, 'dist/apps', basename(appDir)), clean: true },
    plugins: [
      new NxAppWebpackPlugin({
        target: 'node',
        compiler: 'tsc',
        main: './src/main.ts',
        tsConfig: './tsconfig.app.json',
        optimization: false,
        outputHashing: 'none',
        generatePackageJson: true,
        sourceMap: true,
      }),
    ],
  };
}

module.exports = { appWebpackConfig };
