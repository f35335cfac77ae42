"""Process plumbing: settings, logs, outages, per-process caches, installs, background loops."""
