"""Marshmallow schemas, a module per API blueprint: request validation at the edge, the
serialization of every JSON answer and the OpenAPI document."""
