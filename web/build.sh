#!/usr/bin/env bash
# Rebuild the web table's bundle (ai_server/web/static/app.js) from web/src and the
# .proto: installs the pinned tools (package-lock.json), generates the TypeScript
# client (buf + protoc-gen-es), type-checks and bundles with esbuild. Commit the bundle.
set -euo pipefail
cd "$(dirname "$0")"
npm ci --no-audit --no-fund
npm run build
