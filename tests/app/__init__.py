"""App tests: AcpApp and its screens, dialogs and widgets driven by a Textual pilot (App.run_test), and the SVG snapshots (__snapshots__/<module>/ beside the modules)."""
