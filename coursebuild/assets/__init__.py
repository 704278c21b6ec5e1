"""Stage 5: the built site made light: stylesheets trimmed to what the pages use and inlined, scripts and pages minified."""
