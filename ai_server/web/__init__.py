"""The web table served at ``/`` by the HTTP door (:mod:`ai_server.http_door`).

``static/`` holds the page and its script bundle, built from ``web/`` (TypeScript)
by ``web/build.sh`` and committed, so installing the package needs no Node.js.
"""
