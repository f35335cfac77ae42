"""The players' languages (docs/i18n.md): English, French and Italian.

The texts are gettext catalogs in ``locales/`` — ``messages`` for what the server
says (problem titles and details, page shells, mails, webhooks) and ``pages`` for the
pages' scripts — extracted from the source with ``pybabel`` (``python -m
service.i18n.refresh``), translated in the ``.po`` files, and compiled when the
package is installed (``service.i18n.build``). English is the source language: it
has no catalog, every message is its own English.

This package imports nothing of Flask, so the build can use it; the HTTP side
(which language a request gets, the picker) is ``service.http.language``.
"""
