"""gRPC server reflection under both names: ``grpc.reflection.v1`` and ``v1alpha``.

Current tools (grpcurl, Postman, grpcui, ``@grpc/reflection`` clients) ask
``grpc.reflection.v1.ServerReflection`` first; older ones only know ``v1alpha``.
grpcio-reflection (up to 1.85, the newest release) implements v1alpha only, so v1 is
served here from the same servicer: the two protocols are the same messages, field
for field and number for number, under another package, so a v1 request decodes as a
v1alpha one and a v1alpha answer is a valid v1 answer, byte for byte.  The v1 file
descriptor (``grpc/reflection/v1/reflection.proto``) is added to the descriptor pool,
built from the v1alpha one with the package renamed, so reflection also describes
itself under both names.
"""

from __future__ import annotations

from collections.abc import Iterable

import grpc
from google.protobuf import descriptor_pb2, descriptor_pool
from google.rpc import error_details_pb2, status_pb2  # noqa: F401 - see below
from grpc_reflection.v1alpha import reflection as v1alpha
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

# The types of the error details (google.rpc.Status in the grpc-status-details-bin
# trailer, BadRequest, ErrorInfo, RetryInfo) are imported above so that their files are
# in the default pool: reflection describes them (grpcurl prints details through it).

#: The reflection service tools look for first.
V1_SERVICE_NAME = "grpc.reflection.v1.ServerReflection"
#: The older name, still used by many clients.
V1ALPHA_SERVICE_NAME: str = v1alpha.SERVICE_NAME
V1_FILE = "grpc/reflection/v1/reflection.proto"
_V1ALPHA_PACKAGE = "grpc.reflection.v1alpha"
_V1_PACKAGE = "grpc.reflection.v1"


def v1_file_descriptor() -> descriptor_pb2.FileDescriptorProto:
    """``grpc/reflection/v1/reflection.proto``: the v1alpha file under the v1 package."""
    proto = descriptor_pb2.FileDescriptorProto()
    reflection_pb2.DESCRIPTOR.CopyToProto(proto)
    proto.name = V1_FILE
    proto.package = _V1_PACKAGE
    proto.ClearField("options")
    old, new = f".{_V1ALPHA_PACKAGE}.", f".{_V1_PACKAGE}."
    for message in proto.message_type:
        for field in message.field:
            if field.type_name.startswith(old):
                field.type_name = new + field.type_name[len(old):]
    for service in proto.service:
        for method in service.method:
            method.input_type = new + method.input_type[len(old):]
            method.output_type = new + method.output_type[len(old):]
    return proto


def register_v1_descriptor(pool: descriptor_pool.DescriptorPool | None = None) -> None:
    """Add the v1 reflection file to ``pool`` (default: the default pool), once."""
    pool = pool or descriptor_pool.Default()
    try:
        pool.FindFileByName(V1_FILE)
    except KeyError:
        pool.AddSerializedFile(v1_file_descriptor().SerializeToString())


def enable_server_reflection(service_names: Iterable[str], server: grpc.aio.Server) -> None:
    """Serve reflection of ``service_names`` (and of itself, under both names) on
    ``server`` as ``grpc.reflection.v1.ServerReflection`` and as v1alpha."""
    register_v1_descriptor()
    names = tuple(dict.fromkeys((*service_names, V1_SERVICE_NAME, V1ALPHA_SERVICE_NAME)))
    servicer = v1alpha.aio.ReflectionServicer(names)
    reflection_pb2_grpc.add_ServerReflectionServicer_to_server(servicer, server)
    v1 = grpc.method_handlers_generic_handler(V1_SERVICE_NAME, {
        "ServerReflectionInfo": grpc.stream_stream_rpc_method_handler(
            servicer.ServerReflectionInfo,
            request_deserializer=reflection_pb2.ServerReflectionRequest.FromString,
            response_serializer=reflection_pb2.ServerReflectionResponse.SerializeToString,
        ),
    })
    server.add_generic_rpc_handlers((v1,))
