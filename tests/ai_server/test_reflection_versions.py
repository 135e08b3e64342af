"""Server reflection answers as grpc.reflection.v1 and as v1alpha (issue 13, item 6)."""

from __future__ import annotations

import grpc
import pytest
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
from grpc_reflection.v1alpha import reflection_pb2

from ai_server import reflection

V1_METHOD = "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo"
V1ALPHA_METHOD = "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo"


def v1_classes() -> tuple[type, type]:
    """The v1 request and response classes (from the v1 file the server registers)."""
    reflection.register_v1_descriptor()
    pool = descriptor_pool.Default()
    request = pool.FindMessageTypeByName("grpc.reflection.v1.ServerReflectionRequest")
    response = pool.FindMessageTypeByName("grpc.reflection.v1.ServerReflectionResponse")
    return message_factory.GetMessageClass(request), message_factory.GetMessageClass(response)


def ask(channel: grpc.Channel, method: str, requests: list, request_type: type,
        response_type: type) -> list:
    call = channel.stream_stream(method, request_serializer=request_type.SerializeToString,
                                 response_deserializer=response_type.FromString)
    return list(call(iter(requests), timeout=30))


@pytest.mark.parametrize("version", ["v1", "v1alpha"])
def test_both_reflection_versions_list_and_describe_the_service(channel, version) -> None:
    if version == "v1":
        request_type, response_type = v1_classes()
        method = V1_METHOD
    else:
        request_type = reflection_pb2.ServerReflectionRequest
        response_type = reflection_pb2.ServerReflectionResponse
        method = V1ALPHA_METHOD
    listed, described = ask(channel, method, [
        request_type(list_services=""),
        request_type(file_containing_symbol="furnace.v1.FurnaceService"),
    ], request_type, response_type)
    services = {s.name for s in listed.list_services_response.service}
    assert {"furnace.v1.FurnaceService", "grpc.health.v1.Health",
            "grpc.reflection.v1.ServerReflection",
            "grpc.reflection.v1alpha.ServerReflection"} <= services
    files = [descriptor_pb2.FileDescriptorProto.FromString(raw)
             for raw in described.file_descriptor_response.file_descriptor_proto]
    assert "furnace/v1/furnace.proto" in {f.name for f in files}


def test_v1_reflection_describes_itself(channel) -> None:
    request_type, response_type = v1_classes()
    (answer,) = ask(channel, V1_METHOD, [
        request_type(file_containing_symbol="grpc.reflection.v1.ServerReflection")],
        request_type, response_type)
    files = [descriptor_pb2.FileDescriptorProto.FromString(raw)
             for raw in answer.file_descriptor_response.file_descriptor_proto]
    (own,) = [f for f in files if f.name == reflection.V1_FILE]
    assert own.package == "grpc.reflection.v1"
    method = own.service[0].method[0]
    assert method.input_type == ".grpc.reflection.v1.ServerReflectionRequest"
