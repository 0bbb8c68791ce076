#!/usr/bin/env bash
# Cut a release: scripts/release.sh 0.16.0
# Checks a clean main, runs the lint and the tests, sets the version (package.json, the
# lockfile, the OpenAPI document's), turns CHANGELOG's "## Unreleased" into "## <version> —
# <date>" under a fresh empty "## Unreleased", commits "Release <version>" and tags v<version>.
# Pushing is left to you: git push origin main v<version>.
set -euo pipefail
cd "$(dirname "$0")/.."
version=${1:?usage: scripts/release.sh <major.minor.patch>}
[[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || { echo "release: $version is not major.minor.patch" >&2; exit 2; }
[ "$(git rev-parse --abbrev-ref HEAD)" = main ] || { echo "release: not on main" >&2; exit 2; }
[ -z "$(git status --porcelain)" ] || { echo "release: the working tree has changes" >&2; exit 2; }
git rev-parse -q --verify "refs/tags/v$version" >/dev/null && { echo "release: v$version exists" >&2; exit 2; }
grep -q '^## Unreleased' CHANGELOG.md || { echo "release: CHANGELOG.md has no ## Unreleased section" >&2; exit 2; }

if [ "${SKIP_TESTS:-0}" != 1 ]; then
  npm run lint
  npm test
fi

npm version "$version" --no-git-tag-version >/dev/null
sed -i -E "s/(info: \{ title: \"Bot gateway API\", version: \")[^\"]+/\1$version/" src/http/app.ts
today=$(date -u +%Y-%m-%d)
sed -i "0,/^## Unreleased\$/s//## Unreleased\n\n## $version — $today/" CHANGELOG.md
git add package.json package-lock.json src/http/app.ts CHANGELOG.md
git commit -q -m "Release $version"
git tag -a "v$version" -m "Release $version"
echo "tagged v$version; push with: git push origin main v$version"
