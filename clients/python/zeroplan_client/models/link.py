from enum import StrEnum


class Link(StrEnum):
    HOST = "host"
    INTER_NODE = "inter_node"
    INTRA_NODE = "intra_node"

    def __str__(self) -> str:
        return str(self.value)
