"""Printed pages: the record sheet and the campaign's story as HTML and Markdown, drawn from
Jinja2 templates (templates/) fed by the read models the services return."""
