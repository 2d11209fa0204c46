"""The ceiling: a trivial FastAPI app, an `async def` route with a small pydantic model, no middleware."""

from fastapi import FastAPI
from pydantic import BaseModel


class Item(BaseModel):
    name: str
    count: int


def create_app() -> FastAPI:
    app = FastAPI()

    @app.post("/trivial")
    async def trivial(item: Item) -> Item:
        return item

    return app
