// The manifest `pnpm pack` / `pnpm publish` put in a tarball: a user installs dependencies and
// peers only, so the development fields (which name workspace-private packages such as
// @resourceful/test-support, and a build script that points outside the package) stay home.
module.exports = {
  hooks: {
    beforePacking(manifest) {
      delete manifest.devDependencies;
      delete manifest.scripts;
      return manifest;
    },
  },
};
