"""Elicitation form parameters as an agent sends them, one field of every type."""

from __future__ import annotations

from typing import Any


def form_params(properties: dict[str, Any], required: list[str] | None = None, **extra: Any) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required is not None:
        schema["required"] = required
    return {"sessionId": "s1", "message": "Tell me", "mode": "form", "requestedSchema": schema, **extra}


EVERY_TYPE: dict[str, Any] = {
    "name": {"type": "string", "title": "Your name", "minLength": 2, "maxLength": 20, "default": "Ada"},
    "email": {"type": "string", "format": "email"},
    "site": {"type": "string", "format": "uri"},
    "born": {"type": "string", "format": "date"},
    "when": {"type": "string", "format": "date-time"},
    "branch": {"type": "string", "pattern": "^[a-z0-9/-]+$"},
    "rating": {"type": "number", "minimum": 0, "maximum": 5, "default": 4.5},
    "years": {"type": "integer", "minimum": 0, "maximum": 80},
    "subscribe": {"type": "boolean", "default": True},
    "size": {"type": "string", "enum": ["S", "M", "L"], "default": "M"},
    "colour": {
        "type": "string",
        "oneOf": [{"const": "r", "title": "Red"}, {"const": "g", "title": "Green", "description": "like grass"}],
    },
    "langs": {"type": "array", "items": {"type": "string", "enum": ["py", "rs", "go"]}, "minItems": 1, "maxItems": 2},
    "pets": {
        "type": "array",
        "items": {"anyOf": [{"const": "cat", "title": "Cat"}, {"const": "dog", "title": "Dog"}]},
        "default": ["dog"],
    },
}
