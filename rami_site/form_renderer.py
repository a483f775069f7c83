"""The form renderer: Django's, with its `<input>` templates written out in Python.

A round form of six players has about thirty inputs, and Django draws each through two or three
small templates (text.html includes input.html, which includes attrs.html): a third of the game
page's time went there. These few templates are written here exactly as Django writes them
(tests/test_form_renderer.py compares both for every input of the app's forms); every other
template, and any template a project overrides, still goes through Django's renderer.
"""

from __future__ import annotations

from django.forms.renderers import DjangoTemplates
from django.utils.html import conditional_escape, format_html
from django.utils.safestring import SafeString, mark_safe

WIDGETS = "django/forms/widgets/"
# The templates that only include input.html (through input_option.html for a radio button).
INPUT_TEMPLATES = {
    WIDGETS + name
    for name in ("input.html", "text.html", "number.html", "hidden.html", "checkbox.html")
}
OPTION_TEMPLATES = {WIDGETS + "radio_option.html", WIDGETS + "input_option.html"}


def input_tag(widget: dict) -> SafeString:
    """django/forms/widgets/input.html and attrs.html."""
    parts = [format_html('<input type="{}" name="{}"', widget["type"], widget["name"])]
    if widget["value"] is not None:
        parts.append(format_html(' value="{}"', str(widget["value"])))
    for name, value in widget["attrs"].items():
        if value is False:
            continue
        if value is True:
            parts.append(" " + conditional_escape(name))
        else:
            parts.append(format_html(' {}="{}"', name, str(value)))
    parts.append(">")
    return mark_safe("".join(parts))  # noqa: S308 - every part is escaped above


def option_tag(widget: dict) -> SafeString:
    """django/forms/widgets/input_option.html: the input, in its label when `wrap_label`."""
    tag = input_tag(widget)
    if not widget.get("wrap_label"):
        return tag
    label_for = widget["attrs"].get("id")
    opening = format_html('<label for="{}">', label_for) if label_for else "<label>"
    # input.html ends with a line break, which Django's include keeps inside the label.
    return format_html("{}{}\n {}</label>", mark_safe(opening), tag, widget["label"])  # noqa: S308


class FormRenderer(DjangoTemplates):
    def render(self, template_name, context, request=None):
        if template_name in INPUT_TEMPLATES:
            return input_tag(context["widget"])
        if template_name in OPTION_TEMPLATES:
            return option_tag(context["widget"])
        return super().render(template_name, context, request)
