no RUN lines here: fixtures under Inputs/ are not tests
