"""The auditor's workbench (``/ui``): its login sessions (:mod:`.session`), what its pages show (:mod:`.views`, pure),
the few reads it needs beyond the use cases (:mod:`.reads`), its templates and stylesheet. The routes are
:mod:`app.api.workbench`."""
