"""Transport: the FastAPI app factory, routes, settings and error mapping. Holds no formula."""
